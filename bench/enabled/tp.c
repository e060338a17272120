/* SPDX-License-Identifier: MIT */
/*
 * Instantiates the LTTng-UST tracepoint provider of tp.h (the probe code
 * and the tracepoint definitions), linked into the LTTng build of ev.c.
 */
#define TRACEPOINT_CREATE_PROBES
#define TRACEPOINT_DEFINE

#include "tp.h"
