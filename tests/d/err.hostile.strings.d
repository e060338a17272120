/* @target: hostile */
/*
 * The string subroutines on hostile pointers.
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

rt$target:::once /arg0 < 7/ { this->r1 = strlen((char *)arg1); }

rt$target:::once /arg0 < 7/ { this->r2 = strjoin((char *)arg1, ""); }

rt$target:::once /arg0 < 7/ { this->r3 = substr((char *)arg1, 1); }

rt$target:::once /arg0 < 7/ { this->r4 = index((char *)arg1, "A"); }

rt$target:::once /arg0 < 7/ { this->r5 = rindex((char *)arg1, "x"); }

rt$target:::once /arg0 < 7/ { this->r6 = strchr((char *)arg1, 'x'); }

rt$target:::once /arg0 < 7/ { this->r7 = strrchr((char *)arg1, 'A'); }

rt$target:::once /arg0 < 7/ { this->r8 = strstr((char *)arg1, "xx"); }

rt$target:::once /arg0 < 7/ { this->r9 = strtok((char *)arg1, ","); }

rt$target:::once /arg0 < 7/ { this->r10 = basename((char *)arg1); }

rt$target:::once /arg0 < 7/ { this->r11 = dirname((char *)arg1); }

rt$target:::once /arg0 < 7/ { this->r12 = toupper((char *)arg1); }

rt$target:::once /arg0 < 7/ { this->r13 = tolower((char *)arg1); }

rt$target:::once /arg0 < 7/ { this->r14 = strtoll((char *)arg1); }

rt$target:::once /arg0 == 7/ { exit(1); }
