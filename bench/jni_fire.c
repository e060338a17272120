/* SPDX-License-Identifier: MIT */
/*
 * An application object that fires one probe of hotspot_jni.d: the object
 * both dtrace -G commands of the build-tool benchmark are given.
 */
#include "hotspot_jni.h"

void jni_fire(void *env, void *clazz);

void jni_fire(void *env, void *clazz)
{
	HOTSPOT_JNI_ALLOCOBJECT_ENTRY(env, clazz);
}
