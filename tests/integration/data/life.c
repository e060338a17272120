/* SPDX-License-Identifier: MIT */
/*
 * A process's life in known ways, for the proc provider's test (proc.sh):
 *
 *	life N T
 *
 * N fork children, each _exit(k) at once; one more child that fails to
 * exec /nonexistent (ENOENT) and then execs /bin/true; a posix_spawn() of
 * /bin/true and a vfork() child that _exit()s (children that share the
 * memory until they exec: their create only); T threads created
 * and joined; signals: kill(self, SIGUSR1), raise(SIGUSR1), a pthread_kill
 * of a thread that waits for it, tgkill(self, self, SIGUSR1),
 * sigqueue(self, SIGUSR1), then SIGUSR2 blocked, sent by kill() and taken
 * by sigwait(). It prints what the probes' arguments should say:
 *
 *	child PID, thread TID, kill TO SIG
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t got;
static pthread_barrier_t ready;

static void on_usr1(int sig)
{
	(void)sig;
	got++;
}

static void *worker(void *arg)
{
	printf("thread %ld\n", (long)syscall(SYS_gettid));
	fflush(stdout);
	if (arg) { /* the one signalled: it waits until it has its signal */
		pthread_barrier_wait(&ready);
		while (got < 3)
			usleep(1000);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 2, nt = argc > 2 ? atoi(argv[2]) : 2;
	pid_t self = getpid();
	pthread_t t[64];

	if (n < 0 || n > 64 || nt < 1 || nt > 64)
		return 2;
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (int i = 0; i < n; i++) {
		pid_t c = fork();
		if (!c)
			_exit(i);
		printf("child %d\n", (int)c);
		waitpid(c, NULL, 0);
	}
	pid_t c = fork();
	if (!c) {
		execl("/nonexistent", "nonexistent", (char *)NULL);
		execl("/bin/true", "true", (char *)NULL);
		_exit(127);
	}
	printf("child %d\n", (int)c);
	waitpid(c, NULL, 0);
	char *tv[] = { "true", NULL };
	extern char **environ;
	if (!posix_spawn(&c, "/bin/true", NULL, NULL, tv, environ)) {
		printf("spawned %d\n", (int)c);
		waitpid(c, NULL, 0);
	}
	if (!(c = vfork()))
		_exit(0);
	printf("spawned %d\n", (int)c);
	waitpid(c, NULL, 0);

	signal(SIGUSR1, on_usr1);
	pthread_barrier_init(&ready, NULL, 2);
	for (int i = 0; i < nt; i++)
		pthread_create(&t[i], NULL, worker, i == 0 ? (void *)1 : NULL);
	pthread_barrier_wait(&ready);
	pthread_kill(t[0], SIGUSR1);
	kill(self, SIGUSR1);
	raise(SIGUSR1);
	for (int i = 0; i < nt; i++)
		pthread_join(t[i], NULL);
	tgkill(self, self, SIGUSR1);
	union sigval v = { .sival_int = 7 };
	sigqueue(self, SIGUSR1, v);
	printf("kill %d %d\n", (int)self, SIGUSR1);

	sigset_t ss;
	int sig;
	sigemptyset(&ss);
	sigaddset(&ss, SIGUSR2);
	sigprocmask(SIG_BLOCK, &ss, NULL);
	kill(self, SIGUSR2);
	sigwait(&ss, &sig);
	printf("sigwait %d\n", sig);
	return 0;
}
