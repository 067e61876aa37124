# Builds flowrun and installs it like a system tool: the binary, its man page and completions for bash, zsh and
# fish. `make` builds; `make install` (or `sudo make install`) copies into $(DESTDIR)$(PREFIX); `make install-strip`
# does the same with the binary's symbols stripped (a quarter smaller; crash backtraces show addresses only);
# `make uninstall` removes exactly what `make install` put there, and the folders it had to create.

PREFIX ?= /usr/local
DESTDIR ?=
SWIFT ?= swift
# `-s` strips the binary as `install` copies it (see install-strip).
INSTALL_STRIP ?=

bindir := $(PREFIX)/bin
man1dir := $(PREFIX)/share/man/man1
bashcompletiondir := $(PREFIX)/share/bash-completion/completions
zshcompletiondir := $(PREFIX)/share/zsh/site-functions
fishcompletiondir := $(PREFIX)/share/fish/vendor_completions.d
# Where `make install` records the folders it created, so that `make uninstall` removes those and no others.
statedir := $(PREFIX)/share/flowrun
createdfolders := $(statedir)/created-folders
# What `make install` installs, each where its kind is looked for.
installed_binary := $(bindir)/flowrun
installed_manual := $(man1dir)/flowrun.1
installed_bash := $(bashcompletiondir)/flowrun
installed_zsh := $(zshcompletiondir)/_flowrun
installed_fish := $(fishcompletiondir)/flowrun.fish

# The installed binary links the Swift runtime and Foundation statically: it needs glibc and the system libraries
# flowrun uses, not a Swift toolchain. It gets a scratch folder of its own: SwiftPM keeps a linked product when only
# --static-swift-stdlib changes, so sharing `.build` with `swift build -c release` could install a dynamic binary.
static_scratch := .build/static
binary := $(static_scratch)/release/flowrun
# The man page comes from swift-argument-parser's generate-manual plugin. The plugin builds every product first; a
# debug build is the cheapest (and the one `swift build` and `swift test` already made): the page is the same.
manual := .build/plugins/GenerateManual/outputs/flowrun/flowrun.1
completions := $(static_scratch)/completions
# The manual's date: the last commit's, so that the same sources give the same page.
manual_date := $(shell git log -1 --format=%cs 2>/dev/null)

sources := Package.swift $(wildcard Package.resolved) $(shell find Sources -type f)

.PHONY: all build man completions install install-strip uninstall
all: build man completions
build: $(binary)
man: $(manual)
completions: $(completions)/flowrun.bash $(completions)/_flowrun $(completions)/flowrun.fish

$(binary): $(sources)
	$(SWIFT) build --scratch-path $(static_scratch) -c release --static-swift-stdlib --product flowrun
	@touch $@

$(manual): $(sources)
	$(SWIFT) package generate-manual --configuration debug $(if $(manual_date),--date $(manual_date))
	@touch $@

$(completions)/flowrun.bash: $(binary)
	@mkdir -p $(@D)
	$(binary) --generate-completion-script bash > $@
$(completions)/_flowrun: $(binary)
	@mkdir -p $(@D)
	$(binary) --generate-completion-script zsh > $@
$(completions)/flowrun.fish: $(binary)
	@mkdir -p $(@D)
	$(binary) --generate-completion-script fish > $@

# The folders are recorded before they are made: each missing one below DESTDIR, up to the first that exists.
install: all
	@set -e; \
	record="$$(mktemp)"; trap 'rm -f "$$record"' EXIT; \
	for folder in $(bindir) $(man1dir) $(bashcompletiondir) $(zshcompletiondir) $(fishcompletiondir) $(statedir); do \
		path="$(DESTDIR)$$folder"; \
		while [ ! -d "$$path" ] && [ "$$path" != "$(DESTDIR)" ]; do \
			echo "$${path#$(DESTDIR)}" >> "$$record"; path="$$(dirname "$$path")"; \
		done; \
		install -d "$(DESTDIR)$$folder"; \
	done; \
	install -m 755 $(INSTALL_STRIP) $(binary) "$(DESTDIR)$(installed_binary)"; \
	install -m 644 $(manual) "$(DESTDIR)$(installed_manual)"; \
	install -m 644 $(completions)/flowrun.bash "$(DESTDIR)$(installed_bash)"; \
	install -m 644 $(completions)/_flowrun "$(DESTDIR)$(installed_zsh)"; \
	install -m 644 $(completions)/flowrun.fish "$(DESTDIR)$(installed_fish)"; \
	if [ -f "$(DESTDIR)$(createdfolders)" ]; then cat "$(DESTDIR)$(createdfolders)" >> "$$record"; fi; \
	LC_ALL=C sort -u "$$record" > "$(DESTDIR)$(createdfolders)"; \
	echo "installed flowrun into $(DESTDIR)$(PREFIX)"

install-strip:
	$(MAKE) install INSTALL_STRIP=-s

# Deepest folders first (reverse order puts a folder after the ones inside it); a folder something else has put a
# file in since stays.
uninstall:
	rm -f "$(DESTDIR)$(installed_binary)" "$(DESTDIR)$(installed_manual)" "$(DESTDIR)$(installed_bash)" \
		"$(DESTDIR)$(installed_zsh)" "$(DESTDIR)$(installed_fish)"
	@set -e; \
	if [ -f "$(DESTDIR)$(createdfolders)" ]; then \
		folders="$$(LC_ALL=C sort -r "$(DESTDIR)$(createdfolders)")"; \
		rm -f "$(DESTDIR)$(createdfolders)"; \
		for folder in $$folders; do \
			if [ -d "$(DESTDIR)$$folder" ]; then rmdir --ignore-fail-on-non-empty "$(DESTDIR)$$folder"; fi; \
		done; \
	fi
