# vm: the D machine (vm/vm.h). Its sources are built twice: position-independent
# into the runtime (runtime/build.mk), and as libudt-vm.a for dtrace, which runs
# BEGIN, END and tick-n clauses with it.
VM_SRCS := vm/vm.c vm/vm_str.c vm/vm_net.c vm/subr.c vm/dynvar.c vm/spec.c vm/agg.c vm/safe.c vm/psinfo.c
# the direct loads of safe.c (x86-64 only)
VM_ASM := $(if $(filter x86_64,$(shell uname -m)),vm/safe_x86_64.S)
$(BUILD)/lib/libudt-vm.a: $(call objs_of,$(VM_SRCS)) $(patsubst %.S,$(BUILD)/obj/%.o,$(VM_ASM))
