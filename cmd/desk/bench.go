package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"regexp"

	"github.com/desk-dev/desk/internal/fsbench"
	"github.com/desk-dev/desk/internal/sandbox"
)

// benchGroup is `desk bench`: measurements of this machine.
var benchGroup = &group{
	name:    "bench",
	summary: "Measure desk on this machine.",
}

func init() {
	benchGroup.verbs = []groupVerb{
		{benchFSSpec, runBenchFS},
	}
}

var benchFSSpec = &cmdSpec{
	name: "bench fs", synopsis: "[--dir DIR] [--runs N] [--quick] [--runtime RUNTIME] [--no-drop-caches] [--trace] [--only REGEXP] [-v]", minArgs: 0, maxArgs: 0,
	summary: "time filesystem work in a sandbox on /workspace (the FUSE mount) against tmpfs and the disk",
	help: `Runs the same scenarios in three sandboxes that differ only in what is mounted
at /workspace: a workspace store through FUSE (what desk exec --backend
sandbox gets), a fresh tmpfs, and a directory on the disk that holds --dir; where bindfs is
installed (make bench-setup), a fourth with bindfs over a tmpfs.
Scenarios: create, stat and rm 1000 files; mkdir a 10×10×10 tree and find it;
write, copy, read (cold), overwrite and read again (warm) 64 MiB of random
data; git init and commit 100 files; npm install of 200 generated local
packages (5,000 files) offline; then the sandbox's cold start (first true)
and a warm exec of true. Each cell is the median of --runs runs, interleaved.

It prints a Markdown table of milliseconds, the sandbox's ratios to tmpfs and
to the disk, and the issue's target per row, then names every missed target.
Progress goes to standard error with -v. With --trace, each row is
followed by the FUSE requests one run of it sent to the mount: per opcode,
the count, errors, bytes, and the server's time (total, mean, percentiles).

Needs what desk serve's sandbox needs (root, runc, user namespaces,
/dev/fuse) plus git and npm on the host. Before the cold read it drops the
host's page cache (sync; echo 3 > /proc/sys/vm/drop_caches), which slows
everything else on the machine for a moment; --no-drop-caches skips that.
Everything it makes lives in a scratch directory under --dir, removed at the
end.`,
}

func runBenchFS(ctx context.Context, args []string, st streams) int {
	sp := benchFSSpec
	fl := sp.flags()
	dir := fl.String("dir", os.TempDir(), "make the scratch directory here; its filesystem is the disk column")
	runs := fl.Int("runs", fsbench.DefaultRuns, "runs per scenario and filesystem (the median is printed)")
	quick := fl.Bool("quick", false, "a small run: 100 files, 4 MiB, 20 packages, 1 run (a smoke test; not comparable)")
	runtime := fl.String("runtime", sandbox.DefaultRuntime, "the OCI runtime")
	noDrop := fl.Bool("no-drop-caches", false, "do not drop the host's page cache before the cold read")
	only := fl.String("only", "", "run only the rows whose name matches this regular expression")
	trace := fl.Bool("trace", false, "count the FUSE requests of every row (opcodes, latencies)")
	verbose := fl.Bool("v", false, "print progress to standard error")
	if _, code, ok := sp.parse(fl, args, st); !ok {
		return code
	}
	if *runs <= 0 {
		return sp.usageError(st, fl, usagef("--runs must be positive"))
	}
	o := fsbench.Options{Dir: *dir, Runs: *runs, Runtime: *runtime, NoDropCaches: *noDrop, Trace: *trace}
	if *only != "" {
		re, err := regexp.Compile(*only)
		if err != nil {
			return sp.usageError(st, fl, usagef("--only: %v", err))
		}
		o.Only = re
	}
	if *quick {
		o.Runs, o.Files, o.BigSize, o.Packages, o.WarmExecs = 1, 100, 4<<20, 20, 10
	}
	if *verbose {
		o.Progress = st.err
	} else {
		o.Progress = io.Discard
	}
	rep, err := fsbench.Run(ctx, o)
	if err != nil {
		return sp.fail(st, fmt.Errorf("bench: %w", err))
	}
	rep.Format(st.out)
	return exitOK
}
