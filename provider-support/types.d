/*
 * SPDX-License-Identifier: MIT
 *
 * The names of illumos's <sys/types.h> that D scripts from illumos and
 * macOS use and Linux's headers do not have (boolean_t with B_FALSE and
 * B_TRUE, the IDs of zones, projects and tasks, major and minor numbers...),
 * as DTrace's scripts meet them in the kernel's types. (pid_t, uid_t, id_t,
 * uint_t and the other common ones are D's own: docs/d-language.md.)
 */

typedef enum { B_FALSE = 0, B_TRUE = 1 } boolean_t;
typedef id_t zoneid_t;
typedef id_t projid_t;
typedef id_t taskid_t;
typedef id_t poolid_t;
typedef id_t ctid_t;
typedef id_t lgrp_id_t;
typedef int processorid_t;
typedef int psetid_t;
typedef uint_t major_t;
typedef uint_t minor_t;
typedef uint_t nlink_t;
typedef int key_t;
typedef long daddr_t;
typedef u_longlong_t diskaddr_t;
typedef longlong_t offset_t;
typedef u_longlong_t u_offset_t;
typedef uint_t useconds_t;
typedef long suseconds_t;
typedef long blkcnt_t;
typedef ulong_t fsblkcnt_t;
typedef ulong_t fsfilcnt_t;
typedef ulong_t pgcnt_t;
typedef long spgcnt_t;
typedef short pri_t;
typedef ushort_t o_mode_t;
typedef short o_dev_t;
typedef uint_t o_uid_t;
typedef uint32_t caddr32_t;
