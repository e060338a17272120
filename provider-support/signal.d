/*
 * SPDX-License-Identifier: MIT
 *
 * The signal names DTrace's signal.d library gives every script (raise(SIGINT),
 * arg0 == SIGKILL in a predicate), with this system's values: Linux x86-64's,
 * as the traced process and raise() see them.
 */

inline int SIGHUP = 1;
#pragma D binding "1.0" SIGHUP
inline int SIGINT = 2;
#pragma D binding "1.0" SIGINT
inline int SIGQUIT = 3;
#pragma D binding "1.0" SIGQUIT
inline int SIGILL = 4;
#pragma D binding "1.0" SIGILL
inline int SIGTRAP = 5;
#pragma D binding "1.0" SIGTRAP
inline int SIGABRT = 6;
#pragma D binding "1.0" SIGABRT
inline int SIGIOT = 6;
#pragma D binding "1.0" SIGIOT
inline int SIGBUS = 7;
#pragma D binding "1.0" SIGBUS
inline int SIGFPE = 8;
#pragma D binding "1.0" SIGFPE
inline int SIGKILL = 9;
#pragma D binding "1.0" SIGKILL
inline int SIGUSR1 = 10;
#pragma D binding "1.0" SIGUSR1
inline int SIGSEGV = 11;
#pragma D binding "1.0" SIGSEGV
inline int SIGUSR2 = 12;
#pragma D binding "1.0" SIGUSR2
inline int SIGPIPE = 13;
#pragma D binding "1.0" SIGPIPE
inline int SIGALRM = 14;
#pragma D binding "1.0" SIGALRM
inline int SIGTERM = 15;
#pragma D binding "1.0" SIGTERM
inline int SIGSTKFLT = 16;
#pragma D binding "1.0" SIGSTKFLT
inline int SIGCHLD = 17;
#pragma D binding "1.0" SIGCHLD
inline int SIGCLD = 17;
#pragma D binding "1.0" SIGCLD
inline int SIGCONT = 18;
#pragma D binding "1.0" SIGCONT
inline int SIGSTOP = 19;
#pragma D binding "1.0" SIGSTOP
inline int SIGTSTP = 20;
#pragma D binding "1.0" SIGTSTP
inline int SIGTTIN = 21;
#pragma D binding "1.0" SIGTTIN
inline int SIGTTOU = 22;
#pragma D binding "1.0" SIGTTOU
inline int SIGURG = 23;
#pragma D binding "1.0" SIGURG
inline int SIGXCPU = 24;
#pragma D binding "1.0" SIGXCPU
inline int SIGXFSZ = 25;
#pragma D binding "1.0" SIGXFSZ
inline int SIGVTALRM = 26;
#pragma D binding "1.0" SIGVTALRM
inline int SIGPROF = 27;
#pragma D binding "1.0" SIGPROF
inline int SIGWINCH = 28;
#pragma D binding "1.0" SIGWINCH
inline int SIGIO = 29;
#pragma D binding "1.0" SIGIO
inline int SIGPOLL = 29;
#pragma D binding "1.0" SIGPOLL
inline int SIGPWR = 30;
#pragma D binding "1.0" SIGPWR
inline int SIGSYS = 31;
#pragma D binding "1.0" SIGSYS
