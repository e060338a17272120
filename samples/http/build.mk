# The http sample's provider, through dtrace -h and dtrace -G exactly as an
# application's build would run them (the copyable example of the user flow).
HTTP_OUT := $(BUILD)/samples/http

$(HTTP_OUT)/http_provider.h: samples/http/http.d $(BUILD)/bin/dtrace
	$(call msg,DTRACE,$@)
	@mkdir -p $(dir $@)
	$(Q)$(BUILD)/bin/dtrace -h -s $< -o $@

ALL_TARGETS += $(HTTP_OUT)/http_provider.h

$(HTTP_OUT)/tour.o: samples/http/tour.c $(HTTP_OUT)/http_provider.h
	$(call msg,CC,$@)
	$(Q)$(CC) -O2 -g -Wall -Wextra -Werror -I$(HTTP_OUT) -c $< -o $@

# dtrace -G checks tour.o's probe sites against http.d and records their functions.
$(HTTP_OUT)/http_provider.o: samples/http/http.d $(HTTP_OUT)/tour.o $(BUILD)/bin/dtrace
	$(call msg,DTRACE,$@)
	$(Q)$(BUILD)/bin/dtrace -G -s $< -o $@ $(HTTP_OUT)/tour.o

$(HTTP_OUT)/tour: $(HTTP_OUT)/tour.o $(HTTP_OUT)/http_provider.o
	$(call msg,LD,$@)
	$(Q)$(CC) -o $@ $^

ALL_TARGETS += $(HTTP_OUT)/tour
