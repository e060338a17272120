# probes: the probes dtrace knows, as DTrace names them (probes/probes.h).
PROBES_SRCS := probes/probes.c probes/profile.c probes/pid.c probes/libc.c probes/files.c
$(BUILD)/lib/libudt-probes.a: $(call objs_of,$(PROBES_SRCS))
