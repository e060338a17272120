/* SPDX-License-Identifier: MIT */
/*
 * udtrace/udtrace.h - the runtime's API: providers and probes declared at
 * run time (dynamic providers), for language runtimes, plugins and
 * bindings that learn their probes while they run.
 *
 *	struct udt_provider *prov;
 *	struct udt_probe *req;
 *	const enum udt_type types[] = { UDT_TYPE_STRING, UDT_TYPE_INT16, UDT_TYPE_DOUBLE };
 *
 *	udt_provider_create("myapp", NULL, &prov);
 *	udt_provider_add_probe(prov, "handler", "request__done", types, 3, &req);
 *	udt_provider_load(prov);                 (visible to dtrace, gdb, bpftrace)
 *	...
 *	if (udt_probe_enabled(req))
 *		udt_probe_fire(req, uri, (int16_t)status, seconds);
 *	...
 *	udt_provider_free(prov);                 (unloads it, frees its probes)
 *
 * A loaded provider is an ELF shared object the runtime writes into memory
 * (a memfd) and loads: each probe is a site there with a SystemTap note and
 * a semaphore, so gdb (`info probes`), perf and bpftrace see it as they see
 * any USDT probe; its probe table is registered with the runtime, so
 * `dtrace -l -p PID` lists it and a D script traces it with typed args[].
 * Firing goes through libffi to the site only when an external tracer has a
 * breakpoint there; udtrace's consumer is called directly. See
 * docs/dynamic-providers.md.
 *
 * Link with the runtime: `$(pkg-config --libs udtrace)` (libudtrace and
 * libffi). Errors are negative errno values.
 *
 * sdk/ owns the installed headers: this one and sdt.h (the probe-site
 * macros). They never include anything but the C library's headers.
 */
#ifndef UDT_UDTRACE_H
#define UDT_UDTRACE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define UDT_API __attribute__((visibility("default")))
#else
#define UDT_API
#endif

/* The most arguments a probe may have (the SystemTap note's limit). */
#define UDT_PROBE_MAX_ARGS 12

/*
 * Argument types. Integers are passed to udt_probe_fire() as C passes them
 * to a variadic function (int8 to int32 as int, uint8 to uint32 as unsigned
 * int, 64-bit ones as int64_t / uint64_t), strings as const char *,
 * pointers as a pointer, doubles as double. D sees integers with their
 * width and sign, strings as D strings, pointers as void *, and a double as
 * int64_t: its value truncated toward zero, clamped to INT64_MIN..INT64_MAX,
 * NaN as 0 (D has no floating-point values; external tracers see the same
 * integer).
 */
enum udt_type {
	UDT_TYPE_INT8 = 1,
	UDT_TYPE_UINT8,
	UDT_TYPE_INT16,
	UDT_TYPE_UINT16,
	UDT_TYPE_INT32,
	UDT_TYPE_UINT32,
	UDT_TYPE_INT64,
	UDT_TYPE_UINT64,
	UDT_TYPE_STRING,
	UDT_TYPE_POINTER,
	UDT_TYPE_DOUBLE,
};

/* One argument of udt_probe_firev(): the member its type names. */
union udt_value {
	int64_t i;              /* signed integers (truncated to the type's width) */
	uint64_t u;             /* unsigned integers */
	const char *s;          /* UDT_TYPE_STRING */
	const void *p;          /* UDT_TYPE_POINTER */
	double d;               /* UDT_TYPE_DOUBLE */
};

struct udt_provider;
struct udt_probe;

/* udt_provider_opts.flags */
/* udt_provider_load() fails with -ENOEXEC rather than load the provider for udtrace only. */
#define UDT_PROVIDER_REQUIRE_EXTERNAL 0x1u

/*
 * Options of udt_provider_create(). sz is sizeof(struct udt_provider_opts)
 * as the caller knows it (UDT_OPTS sets it); fields are added at the end.
 */
struct udt_provider_opts {
	size_t sz;
	const char *module;     /* the probes' module (dtrace -l); NULL: the provider's name */
	unsigned int flags;     /* UDT_PROVIDER_* */
};

#ifndef __cplusplus
/* UDT_OPTS(udt_provider_opts, o, .flags = ...): an options struct with its size set. */
#define UDT_OPTS(type, name, ...) struct type name = { .sz = sizeof(struct type), __VA_ARGS__ }
#endif

/**
 * udt_provider_create() - a new provider, without probes, not loaded.
 * @name: the provider's name: a letter or '_', then letters, digits and
 *        '_', not ending in a digit (dtrace appends the process ID), at
 *        most 64 characters.
 * @opts: options, or NULL for the defaults.
 * @ret_prov: the provider, on success.
 *
 * Return: 0; -EINVAL (a bad name or options), -ENOMEM.
 * Thread-safe.
 */
UDT_API int udt_provider_create(const char *name, const struct udt_provider_opts *opts,
				struct udt_provider **ret_prov);

/**
 * udt_provider_add_probe() - add a probe to a provider that is not loaded.
 * @prov: the provider.
 * @func: the probe's function (dtrace -l), or NULL for none.
 * @name: its name: letters, digits, '_' and '-'; a '-' is kept as "__" in
 *        the note, as a `.d` file writes it, and D shows "__" as '-'.
 * @types: the arguments' types.
 * @type_cnt: how many, at most UDT_PROBE_MAX_ARGS.
 * @ret_probe: the probe, owned by the provider, on success (may be NULL).
 *
 * Return: 0; -EINVAL (bad arguments), -EEXIST (a probe of that function and
 * name exists), -EBUSY (the provider is loaded: unload it first), -ENOMEM.
 * Not thread-safe: serialize calls on the same provider.
 */
UDT_API int udt_provider_add_probe(struct udt_provider *prov, const char *func, const char *name,
				   const enum udt_type *types, size_t type_cnt,
				   struct udt_probe **ret_probe);

/**
 * udt_probe_remove() - remove a probe from a provider that is not loaded,
 * and free it.
 * @probe: the probe; NULL is ignored.
 *
 * Return: 0; -EBUSY (its provider is loaded).
 * Not thread-safe: serialize calls on the same provider.
 */
UDT_API int udt_probe_remove(struct udt_probe *probe);

/**
 * udt_provider_load() - make the provider's probes visible and fireable:
 * write the in-memory ELF object, load it, register the probe table.
 * @prov: the provider.
 *
 * Where no executable in-memory object can be made (vm.memfd_noexec=2 and
 * no executable directory for an unnamed file, or another architecture
 * than x86-64) the provider is loaded for udtrace only: dtrace lists and
 * traces it, external tracers do not see it, udt_provider_path() says
 * -ENOENT; with UDT_PROVIDER_REQUIRE_EXTERNAL the load fails instead.
 *
 * Return: 0 (also when already loaded); -ENOEXEC (see above), -EMFILE,
 * -ENOMEM, or another negative errno of the memfd or the loader.
 * Not thread-safe: serialize calls on the same provider.
 */
UDT_API int udt_provider_load(struct udt_provider *prov);

/**
 * udt_provider_unload() - unregister the probes and unload the object.
 * @prov: the provider.
 *
 * A consumer tracing the probes stops seeing them; its session goes on.
 * No thread may be firing the provider's probes during the call (fires
 * before and after are fine: an unloaded provider's probes are disabled).
 *
 * Return: 0 (also when not loaded).
 * Not thread-safe: serialize calls on the same provider, and with its fires.
 */
UDT_API int udt_provider_unload(struct udt_provider *prov);

/**
 * udt_provider_free() - unload the provider and free it and its probes.
 * @prov: the provider; NULL is ignored.
 *
 * Not thread-safe: as udt_provider_unload().
 */
UDT_API void udt_provider_free(struct udt_provider *prov);

/**
 * udt_provider_path() - the path external tracers open for the loaded
 * provider's object ("/proc/PID/fd/N": give it to bpftrace as the binary,
 * `usdt:/proc/PID/fd/N:PROVIDER:PROBE`; gdb finds it by itself).
 * @prov: the provider.
 * @buf: where to write it, NUL-terminated.
 * @sz: bytes at buf.
 *
 * Return: its length; -ENOENT (not loaded, or loaded for udtrace only),
 * -ERANGE (buf is too small).
 * Not thread-safe: serialize calls on the same provider.
 */
UDT_API int udt_provider_path(const struct udt_provider *prov, char *buf, size_t sz);

/**
 * udt_probe_enabled() - whether a tracer has the probe enabled (use it to
 * skip computing arguments). It can go stale at once: a probe enabled
 * right after is missed once, one disabled is fired once more; both are
 * harmless.
 * @probe: the probe.
 *
 * Return: non-zero when enabled.
 * Async-signal-safe.
 */
UDT_API int udt_probe_enabled(const struct udt_probe *probe);

/**
 * udt_probe_fire() - fire the probe with its arguments, of the types it was
 * added with (see enum udt_type for how C passes them). Nothing happens
 * unless it is enabled; a probe of a provider not loaded is never enabled.
 * @probe: the probe.
 *
 * Async-signal-safe.
 */
UDT_API void udt_probe_fire(struct udt_probe *probe, ...);

/**
 * udt_probe_firev() - the same with the arguments in an array, for
 * bindings: values[i] holds argument i in the member its type names.
 * @probe: the probe.
 * @values: its arguments.
 * @cnt: how many values there are; missing arguments are 0, extra ones
 *       ignored.
 *
 * Async-signal-safe.
 */
UDT_API void udt_probe_firev(struct udt_probe *probe, const union udt_value *values, size_t cnt);

#ifdef __cplusplus
}
#endif

#endif /* UDT_UDTRACE_H */
