/* @target: hostile */
/*
 * Copies, loads, comparisons, keys and assignments from hostile pointers.
 * rtprog's hostile mode fires rt:::once(kind, pointer) with 1 NULL, 2 an
 * unmapped page (0x10002000), 3 a PROT_NONE page (0x10001000), 4 the last
 * 16 bytes of a mapping with no NUL before that PROT_NONE page
 * (0x10000ff0), 5 a string of 1 MB, 6 a good string. Every read of the
 * process's memory is fault-safe: each bad pointer is an error naming the
 * address that could not be read, as DTrace reports it, the clause is lost,
 * and the target runs on: it fires kind 7 after them all, where the script
 * exits (with 1, as the error tests of this suite do).
 */
#pragma D option quiet

int keys[string];

rt$target:::once /arg0 < 7/ { this->r1 = copyin(arg1, 8); }

rt$target:::once /arg0 < 7/ { this->r2 = copyin(arg1, 32); }

rt$target:::once /arg0 < 7/ { @[copyinstr(arg1)] = count(); }

rt$target:::once /arg0 < 7/ { @[copyinstr(arg1, 8)] = count(); }

rt$target:::once /arg0 < 7/ { @[stringof(arg1)] = count(); }

rt$target:::once /arg0 < 7/ { copyinto(arg1, 16, alloca(16)); }

rt$target:::once /arg0 < 7/ { bcopy((void *)arg1, alloca(16), 16); }

rt$target:::once /arg0 < 7/ { this->r3 = *(int *)arg1; }

rt$target:::once /arg0 < 7/ { this->r4 = (char *)arg1 == "AAAA"; }

rt$target:::once /arg0 < 7/ { this->r5 = keys[stringof(arg1)]; }

rt$target:::once /arg0 < 7/ { self->s = stringof(arg1); }

rt$target:::once /arg0 == 7/ { exit(1); }
