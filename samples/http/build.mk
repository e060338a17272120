# The http sample: its provider through dtrace -h and dtrace -G exactly as an
# application's build would run them (the copyable example of the user flow),
# and the instrumented server.
HTTP_OUT := $(BUILD)/samples/http

$(HTTP_OUT)/http_provider.h: samples/http/http.d $(BUILD)/bin/dtrace
	$(call msg,DTRACE,$@)
	@mkdir -p $(dir $@)
	$(Q)$(BUILD)/bin/dtrace -h -s $< -o $@

ALL_TARGETS += $(HTTP_OUT)/http_provider.h

# The instrumented server, built as an application's own Makefile would
# build one, the README's recipe (copy these three rules): compile against
# the generated header, let dtrace -G check the object's probe sites and
# write the provider's object, then link both. No library: dtrace -p loads
# the runtime into the running server (docs/injection.md), dtrace -c
# preloads it.
$(HTTP_OUT)/httpd.o: samples/http/httpd.c samples/http/httpproto.h $(HTTP_OUT)/http_provider.h
	$(call msg,CC,$@)
	$(Q)$(CC) -O2 -g -Wall -Wextra -Werror -std=gnu11 -D_GNU_SOURCE -pthread -I$(HTTP_OUT) \
		-c $< -o $@

$(HTTP_OUT)/httpd_provider.o: samples/http/http.d $(HTTP_OUT)/httpd.o $(BUILD)/bin/dtrace
	$(call msg,DTRACE,$@)
	$(Q)$(BUILD)/bin/dtrace -G -s samples/http/http.d -o $@ $(HTTP_OUT)/httpd.o

$(HTTP_OUT)/httpd: $(HTTP_OUT)/httpd.o $(HTTP_OUT)/httpd_provider.o
	$(call msg,LD,$@)
	$(Q)$(CC) -pthread -o $@ $(HTTP_OUT)/httpd.o $(HTTP_OUT)/httpd_provider.o

ALL_TARGETS += $(HTTP_OUT)/httpd
