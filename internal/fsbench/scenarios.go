package fsbench

import (
	"archive/tar"
	"compress/gzip"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// scenario is one row: setup (untimed), body (timed inside the sandbox),
// cleanup (untimed), each a bash script run in /workspace.
type scenario struct {
	name                 string
	setup, body, cleanup string
	dropCaches           bool // drop the host's page cache between setup and body
	target               Target
}

// npmFlags install offline, from the file: tarballs, with a fresh cache in
// the sandbox's /tmp (a tmpfs, the same for every column).
const npmFlags = "--offline --no-audit --no-fund --no-update-notifier --loglevel=error"

// scenarios are the rows timed in files, in order: some use what an earlier
// one left (stat and rm use the files create made).
func scenarios(o Options) []scenario {
	n := o.Files
	mib := o.BigSize >> 20
	big := fmt.Sprintf("%d MiB", mib)
	if mib == 0 {
		big = fmt.Sprintf("%d KiB", o.BigSize>>10)
	}
	const dd = "dd bs=1M status=none"
	mkfiles := fmt.Sprintf("mkdir b; cd b; for ((i=0; i<%d; i++)); do : > f$i; done", n)
	return []scenario{
		{name: fmt.Sprintf("create %d files", n), setup: "rm -rf b; mkdir b",
			body: fmt.Sprintf("cd b; for ((i=0; i<%d; i++)); do : > f$i; done", n), target: Target{Of: Tmpfs, Ratio: 3.35}},
		// stat and rm use the files create left (rm makes them again for
		// its later runs).
		{name: fmt.Sprintf("stat %d files", n), setup: "test -d b || (" + mkfiles + ")",
			body: fmt.Sprintf("cd b; for ((i=0; i<%d; i++)); do [ -e f$i ]; done", n), target: Target{Of: Tmpfs, Ratio: 1.2}},
		{name: fmt.Sprintf("rm %d files", n), setup: "test -d b || (" + mkfiles + ")",
			body: "rm -r b", target: Target{Of: Tmpfs, Ratio: 1.3}},
		// Small files with content, as a source tree or node_modules
		// holds: 4 KiB each, written by the shell (no process per file).
		{name: fmt.Sprintf("write %d files of 4 KiB", n), setup: "rm -rf s; mkdir s",
			body:    fmt.Sprintf("printf -v x '%%4096s' ''; cd s; for ((i=0; i<%d; i++)); do printf '%%s' \"$x\" > f$i; done", n),
			cleanup: "rm -rf s", target: Target{Of: -1}},
		{name: "mkdir 10×10×10 tree", setup: "rm -rf t",
			body: "mkdir -p t/{0..9}/{0..9}/{0..9}", target: Target{Of: -1}},
		{name: "find the tree", setup: "test -d t/9/9/9 || mkdir -p t/{0..9}/{0..9}/{0..9}",
			body: "find t > /dev/null", target: Target{Of: Tmpfs, Ratio: 1.2}},
		{name: "write " + big + " of random data", setup: "rm -rf t big big2; cat /input/random > /dev/null",
			body: dd + " if=/input/random of=big", target: Target{Of: Tmpfs, Ratio: 2.45}},
		{name: "copy " + big, setup: "rm -f big2",
			body: "cp big big2", target: Target{Of: Tmpfs, Ratio: 14}},
		{name: "read " + big + " (cold)", dropCaches: true,
			body: dd + " if=big of=/dev/null", target: Target{Of: Tmpfs, Ratio: 2}},
		{name: "overwrite " + big + " with other data", setup: "cat /input/random2 > /dev/null",
			body: dd + " if=/input/random2 of=big conv=notrunc", target: Target{Of: -1}},
		{name: "read " + big + " again (warm)", setup: "cat big > /dev/null",
			body: dd + " if=big of=/dev/null", target: Target{Of: -1}},
		{name: "git init + commit 100 files", setup: "rm -rf big big2 g; mkdir g; cd g; for i in {1..100}; do echo \"file $i\" > f$i.txt; done",
			body:    "cd g && git init -q && git add -A && git -c user.name=bench -c user.email=bench@example.com commit -qm bench",
			cleanup: "rm -rf g", target: Target{Of: -1}},
		{name: fmt.Sprintf("npm install (%d pkgs, %d files)", o.Packages, o.Packages*o.PkgFiles),
			setup: "rm -rf app /tmp/npm-cache; mkdir app; cp /input/app/package.json app/",
			body:  "cd app && npm install " + npmFlags + " --cache /tmp/npm-cache > /dev/null",
			// Check what was installed, untimed: every package is there.
			cleanup: fmt.Sprintf("test $(ls app/node_modules | wc -l) -ge %d && rm -rf app /tmp/npm-cache", o.Packages),
			target:  Target{Of: Disk, Ratio: 1.3}},
	}
}

// writeInputs writes what the scenarios read, bound read-only at /input:
// random (BigSize random bytes), the npm package tarballs (p000-1.0.0.tgz,
// ...) and app/package.json, which depends on all of them. Package i
// depends on packages i-1 and i/2 (by absolute file: specs), so npm resolves
// a tree with shared dependencies, offline.
func writeInputs(dir string, o *Options) error {
	if err := os.MkdirAll(filepath.Join(dir, "app"), 0o755); err != nil {
		return fmt.Errorf("write bench input: %w", err)
	}
	// Two files of random data: the overwrite writes the second over a copy
	// of the first (the same bytes again would only measure the store's
	// deduplication).
	for _, name := range []string{"random", "random2"} {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			return fmt.Errorf("write bench input: %w", err)
		}
		_, err = io.CopyN(f, rand.Reader, o.BigSize)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("write bench input: %w", err)
		}
	}
	name := func(i int) string { return fmt.Sprintf("p%03d", i) }
	spec := func(i int) string { return "file:/input/" + name(i) + "-1.0.0.tgz" }
	appDeps := map[string]string{}
	for i := range o.Packages {
		deps := map[string]string{}
		for _, d := range []int{i - 1, i / 2} {
			if d >= 0 && d != i {
				deps[name(d)] = spec(d)
			}
		}
		if err := writePackage(filepath.Join(dir, name(i)+"-1.0.0.tgz"), name(i), deps, o.PkgFiles); err != nil {
			return err
		}
		appDeps[name(i)] = spec(i)
	}
	app, _ := json.MarshalIndent(map[string]any{"name": "bench-app", "version": "1.0.0", "private": true, "dependencies": appDeps}, "", "  ")
	if err := os.WriteFile(filepath.Join(dir, "app", "package.json"), app, 0o644); err != nil {
		return fmt.Errorf("write bench input: %w", err)
	}
	return nil
}

// writePackage writes an npm package tarball (entries under package/) with
// files files: package.json, index.js, README.md and modules in lib/.
func writePackage(file, name string, deps map[string]string, files int) error {
	f, err := os.Create(file)
	if err != nil {
		return fmt.Errorf("write package %s: %w", name, err)
	}
	defer f.Close()
	gz := gzip.NewWriter(f)
	tw := tar.NewWriter(gz)
	mtime := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	add := func(p, body string) error {
		return errors.Join(tw.WriteHeader(&tar.Header{Name: "package/" + p, Mode: 0o644, Size: int64(len(body)), ModTime: mtime, Typeflag: tar.TypeReg}),
			writeString(tw, body))
	}
	pj, _ := json.MarshalIndent(map[string]any{"name": name, "version": "1.0.0", "main": "index.js", "dependencies": deps}, "", "  ")
	var idx strings.Builder
	for d := range deps {
		fmt.Fprintf(&idx, "require(%q);\n", d)
	}
	mods := files - 3
	for k := range mods {
		fmt.Fprintf(&idx, "exports.m%d = require('./lib/m%d.js');\n", k, k)
	}
	errs := []error{add("package.json", string(pj)), add("index.js", idx.String()),
		add("README.md", "# "+name+"\n\nA generated package for desk bench fs.\n"+strings.Repeat("Lorem ipsum dolor sit amet. ", 20)+"\n")}
	for k := range mods {
		body := fmt.Sprintf("// %s lib/m%d.js\nmodule.exports = function m%d(x) {\n  return x + %d;\n};\n", name, k, k, k) +
			strings.Repeat(fmt.Sprintf("// padding line %d of a small module\n", k), 10)
		errs = append(errs, add(fmt.Sprintf("lib/m%d.js", k), body))
	}
	errs = append(errs, tw.Close(), gz.Close())
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("write package %s: %w", name, err)
	}
	return nil
}

func writeString(w io.Writer, s string) error {
	_, err := io.WriteString(w, s)
	return err
}
