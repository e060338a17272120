# SPDX-License-Identifier: MIT
# Compiler flags for every configuration. A configuration (release in build/,
# sanitizers in build/asan/) never shares object files with another.

UDTRACE_VERSION := 0.1

CC      ?= cc
CXX     ?= c++
AR      ?= ar
PKG_CONFIG ?= pkg-config
OBJCOPY ?= objcopy

WARN    := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
           -Wformat=2 -Wundef -Wpointer-arith -Wvla
CSTD    := -std=gnu11

ifeq ($(FUZZ),1)
# libFuzzer harnesses (tests/fuzz/): clang, its fuzzer's coverage, ASan and UBSan
CC      := clang
BUILD   ?= build/fuzz
OPT     := -O1 -g -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all \
           -fno-omit-frame-pointer
SANLD   := -fsanitize=address,undefined
else ifeq ($(SAN),1)
BUILD   ?= build/asan
OPT     := -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
SANLD   := -fsanitize=address,undefined
else
BUILD   ?= build
OPT     := -O2 -g
SANLD   :=
endif
# one spelling of a build folder in the tree (make BUILD=$PWD/build is make's BUILD=build):
# the objects' dependency files name their targets as the rules do, or a header's change
# would not rebuild what an install from a test had built
override BUILD := $(patsubst $(CURDIR)/%,%,$(BUILD))

LIBELF_CFLAGS := $(shell $(PKG_CONFIG) --cflags libelf 2>/dev/null)
LIBELF_LIBS   := $(shell $(PKG_CONFIG) --libs libelf 2>/dev/null || echo -lelf)
ifeq ($(strip $(LIBELF_LIBS)),)
LIBELF_LIBS := -lelf
endif

# Zydis (Debian: libzydis-dev) decodes what a SystemTap site's jump displaces
# (proc/reloc.c); built without it, dtrace traps every such site.
ZYDIS_OK    := $(shell echo '\#include <Zydis/Zydis.h>' | $(CC) -E -x c - >/dev/null 2>&1 && echo 1)
ZYDIS_LIBS  := $(if $(ZYDIS_OK),-lZydis)
# json-c writes the consumer's JSON and XML output (output/json.c)
JSONC_CFLAGS := $(shell $(PKG_CONFIG) --cflags json-c 2>/dev/null)
JSONC_LIBS   := $(shell $(PKG_CONFIG) --libs json-c 2>/dev/null || echo -ljson-c)
# what a program linking libconsumer.a links too
# liblzma: MiniDebugInfo (.gnu_debugdata) symbols; libunwind-dev depends on liblzma-dev
LZMA_LIBS := $(or $(shell $(PKG_CONFIG) --libs liblzma 2>/dev/null),-llzma)
# what a program linking proc/ links (its ELF reading, decoding, MiniDebugInfo)
PROC_LIBS = $(LIBELF_LIBS) $(ZYDIS_LIBS) $(LZMA_LIBS)
CONSUMER_LIBS = $(PROC_LIBS) $(JSONC_LIBS)

ALL_CFLAGS  = $(CSTD) $(OPT) $(WARN) -fvisibility=hidden -D_GNU_SOURCE \
              -I. -Isdk/include -I$(BUILD)/gen $(LIBELF_CFLAGS) $(JSONC_CFLAGS) $(CFLAGS) \
              $(EXTRA_CFLAGS)
ALL_LDFLAGS = $(SANLD) $(LDFLAGS)
DEPFLAGS    = -MMD -MP

PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
LIBDIR     ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
MANDIR     ?= $(PREFIX)/share/man
DATADIR    ?= $(LIBDIR)/udtrace
