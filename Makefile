# prores-decode — the README's commands. Every target installs what it needs
# on a fresh Debian 12 (apt-get as root, or through sudo).

SWIFT       ?= swift
CONFIG      ?= release
BIN          = .build/$(CONFIG)/prores-decode
DEMO_CLIP   ?= Fixtures/pq.mov
APT_PACKAGES = pkg-config libavcodec-dev libavformat-dev libavutil-dev \
               libvulkan-dev libshaderc-dev glslang-dev spirv-tools \
               mesa-vulkan-drivers vulkan-validationlayers ffmpeg python3 bc \
               libxcb1-dev zlib1g-dev libebur128-dev libpulse-dev
# (libxcb1-dev: xcb's headers; the library itself is opened by `play` at run time.
# libpulse-dev: libpulse's headers for `play`'s sound; libpulse0 is opened at run time too.
# libebur128-dev: the EBU R 128 loudness `check` measures on every sound track.)
# The independent readers the tests check our outputs with (b3sum, exrheader,
# oiiotool, pngcheck, headless chromium for the HTML pages and SVG charts;
# mkvtoolnix for Matroska files as mkvmerge and mkvpropedit write them;
# for `play`: an X server, xdotool, xwd, xwininfo/xkill and numpy, and a private PulseAudio
# server with parec to record its sound; man, zsh and fish to read
# the generated man page and completions; dpkg-dev and debootstrap to build
# the .deb and install it on a clean Debian 12; nginx and PyYAML for check
# over HTTP and the scale-out recipes): installed by `make test`
# only, so `make demo` stays quick.
TEST_PACKAGES = b3sum openexr openimageio-tools pngcheck python3-jsonschema chromium mkvtoolnix \
                xvfb xdotool x11-apps x11-utils python3-numpy pulseaudio pulseaudio-utils \
                man-db groff-base zsh fish dpkg-dev debootstrap \
                nginx-light python3-yaml
SUDO        := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: all deps test-deps build demo test bench fixtures clean install uninstall deb

all: build

# Installs only the packages that are missing; apt-get update runs only then.
deps:
	@$(MAKE) --no-print-directory install-packages PACKAGES="$(APT_PACKAGES)"
	@command -v $(SWIFT) >/dev/null || { echo "swift toolchain not found (expected on PATH)"; exit 1; }

test-deps: deps
	@$(MAKE) --no-print-directory install-packages PACKAGES="$(TEST_PACKAGES)"

.PHONY: install-packages
install-packages:
	@missing=$$(for p in $(PACKAGES); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "installing:" $$missing; \
	  $(SUDO) apt-get update && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y --no-install-recommends $$missing; \
	fi

build: deps
	$(SWIFT) build -c $(CONFIG)

DEMO_OUT    ?= demo-out

# Decodes an HDR (PQ) fixture on the CPU into pooled y416 surfaces, converts
# them on the GPU (lavapipe when there is none) to half-float linear Display
# P3, saves EXRs and a PNG preview, and prints per-stage timing.
demo: build
	@echo "== Vulkan devices"
	$(BIN) devices
	@echo "== info $(DEMO_CLIP)"
	$(BIN) info $(DEMO_CLIP)
	@echo "== decode $(DEMO_CLIP) → y416 → Vulkan → RGBA16F linear Display P3 → $(DEMO_OUT)/*.exr"
	$(BIN) $(DEMO_CLIP) --format y416 --vulkan --save $(DEMO_OUT) --framemd5 -
	$(BIN) $(DEMO_CLIP) --frames 1 --save $(DEMO_OUT)/preview --save-format png --quiet
	@echo "== wrote $$(ls $(DEMO_OUT)/*.exr | wc -l) EXR frames and $(DEMO_OUT)/preview/frame-000000.png"

# The repository's own rules, checked by `make lint` (which .ci/run runs
# beside `make test`): formatting (.swift-format, 120 columns) and the
# policy tests, the PolicyTests target (Tests/PolicyTests): wording, commit
# subjects, layering, sessions made by the factory alone, no library
# reading the environment, trap scan, the README's examples, the
# reference generated from the option tables, no option looked up by a
# string name, and every folder under
# Tests/ a target. `make test` runs every other test target.
POLICY_TESTS = ^PolicyTests\.

test: test-deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --disable-swift-testing --skip '$(POLICY_TESTS)'

.PHONY: lint format
lint: test-deps
	$(SWIFT) format lint --strict --recursive --parallel Package.swift Plugins Sources Tests
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --disable-swift-testing --filter '$(POLICY_TESTS)'

# Rewrites every Swift file as .swift-format says (what `make lint` checks).
format:
	$(SWIFT) format --in-place --recursive --parallel Package.swift Plugins Sources Tests

bench: build
	scripts/bench.sh

# GPU cost of each --effect at 4K (scripts/bench-effects.sh; needs a Vulkan device).
.PHONY: bench-effects
bench-effects: build
	scripts/bench-effects.sh

fixtures:
	Fixtures/make-fixtures.sh

# `make install PREFIX=/usr/local` (DESTDIR for staging): the binary, which
# carries its shaders, and the man page and completions kept under share/
# (generated from the option tables: prores-decode --generate KIND). It
# installs what `make build` built (CONFIG=release by default) and never
# builds itself, so `sudo make install` compiles nothing as root.
PREFIX      ?= /usr/local
DESTDIR     ?=
SHARED_FILES = share/man/man1/prores-decode.1 \
               share/bash-completion/completions/prores-decode \
               share/zsh/vendor-completions/_prores-decode \
               share/fish/vendor_completions.d/prores-decode.fish

install:
	@[ -x $(BIN) ] || { echo "$(BIN) is missing: run make build$(if $(filter-out release,$(CONFIG)), CONFIG=$(CONFIG)) first"; exit 1; }
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin/prores-decode
	@for f in $(SHARED_FILES); do \
	  echo install -m 644 $$f $(DESTDIR)$(PREFIX)/$$f; \
	  install -d $(DESTDIR)$(PREFIX)/$$(dirname $$f) && install -m 644 $$f $(DESTDIR)$(PREFIX)/$$f || exit 1; \
	done

# Rewrites docs/cli.md and the files under share/ from the option tables
# with the built binary (after an option changes; GeneratedReferenceTests
# fails until then): `make reference CONFIG=debug` after `swift build`.
.PHONY: reference
reference:
	@[ -x $(BIN) ] || { echo "$(BIN) is missing: build it first"; exit 1; }
	$(BIN) --generate cli-markdown > docs/cli.md
	$(BIN) --generate man > share/man/man1/prores-decode.1
	$(BIN) --generate bash > share/bash-completion/completions/prores-decode
	$(BIN) --generate zsh > share/zsh/vendor-completions/_prores-decode
	$(BIN) --generate fish > share/fish/vendor_completions.d/prores-decode.fish

# Removes the installed files only: the directories are shared with others.
uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/prores-decode $(addprefix $(DESTDIR)$(PREFIX)/,$(SHARED_FILES))

# dist-deb/prores-decode_VERSION_ARCH.deb for Debian 12: a release build with
# the Swift runtime linked in (it is no Debian package), Depends from the
# shared libraries the binary needs (dpkg-shlibdeps). Its own build
# directory, so the usual builds keep theirs (scripts/build-deb.sh).
deb: deps
	@$(MAKE) --no-print-directory install-packages PACKAGES="dpkg-dev"
	SWIFT=$(SWIFT) scripts/build-deb.sh

clean:
	rm -rf .build

# dist/: a self-contained prores-decode (static FFmpeg and Swift runtime) and a
# minimal static ffmpeg CLI for a machine with an NVIDIA GPU (docs/gpu-machine.md).
.PHONY: bundle
bundle: deps
	scripts/build-bundle.sh

# libFuzzer + AddressSanitizer for FUZZ_SECONDS in all, shared by its three
# targets (decode: any bytes through FuzzEntry; tables: MOV/MXF sample
# tables; options: argument vectors and --rate); FUZZ_TARGETS="decode" picks.
# Not part of `make test` (FuzzSeedReplayTests replays the seeds there).
# Seeds come from Fixtures/, the learned corpora stay in .build/fuzz/corpus/;
# a crash is saved as Fixtures/fuzz/[TARGET/]crash-* (replayed by the tests)
# and fails the target.
FUZZ_SECONDS ?= 60
.PHONY: fuzz
fuzz: deps
	FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_TARGETS="$(FUZZ_TARGETS)" SWIFT=$(SWIFT) scripts/fuzz.sh

# The three decoders (cpu, gpu on whatever Vulkan device there is, ffmpeg)
# on FUZZ_MUTANTS mutants of the tiny fixtures (scripts/fuzz-decoders.py):
# fails on any mutant where ours differ from each other, or from FFmpeg's in
# exit code, frames written, or an unflagged frame's md5.
FUZZ_MUTANTS ?= 1000
.PHONY: fuzz-decoders
fuzz-decoders: deps
	$(SWIFT) build
	scripts/fuzz-decoders.py --mutants $(FUZZ_MUTANTS)
