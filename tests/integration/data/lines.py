# A script whose executed lines are known (tests/integration/notes.sh):
# python:::line fires once per line executed in a frame of this file.
# Usage: lines.py N [wait]: "wait" prints "ready" and waits for a line
# on stdin before, and "done" and waits for another after.
import sys


def f(x):
    y = x * 2
    return y + 1


def main():
    n = int(sys.argv[1])
    if len(sys.argv) > 2:
        print("ready", flush=True)
        sys.stdin.readline()
    total = 0
    for i in range(n):
        total += f(i)
    print("total=%d" % total, flush=True)
    if len(sys.argv) > 2:
        print("done", flush=True)
        sys.stdin.readline()


main()
