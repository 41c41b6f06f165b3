package mcp

import (
	"context"
	"strconv"

	"github.com/desk-dev/desk/internal/audit"
	"github.com/desk-dev/desk/internal/host"
	"github.com/desk-dev/desk/internal/policy"
	"github.com/desk-dev/desk/internal/run"
	"github.com/desk-dev/desk/internal/vfs"
)

// MaxExecJournalScan bounds the change-journal entries read at an
// execution's end to find the changes made through the sandbox's mount
// (attributed to the execution by the mount, not by context).
const MaxExecJournalScan = 100_000

// ExecutionRecord is the audit record of an ended execution (KindExec,
// action "execution"), made for the call of base (its workspace, actor and
// labels): the execution's status, exit code, signal, CPU time (cpu_us,
// what the workspace's CPU quota reads back) and duration, and the changes
// it made: span's, those attributed by context (the shell and js
// backends), or else those the sandbox's mount attributed to it in fs's
// change journal after start (the journal's newest number when it
// started; nil fs: not known, the record says Truncated).
func ExecutionRecord(ctx context.Context, base audit.Record, info run.Info, span *vfs.ChangeSpan, fs *vfs.FS, start uint64) audit.Record {
	rec := audit.Record{Kind: audit.KindExec, Action: "execution", Workspace: base.Workspace, Actor: base.Actor, TokenID: base.TokenID, Labels: base.Labels}
	rec.Outcome = string(info.Status)
	rec.Error = info.Error
	rec.Args = []audit.Arg{{Name: "execution", Value: info.ID}, {Name: "backend", Value: info.Backend}, {Name: "exit_code", Value: strconv.Itoa(info.ExitCode)}}
	if info.Signal != "" {
		rec.Args = append(rec.Args, audit.Arg{Name: "signal", Value: info.Signal})
	}
	if u := info.Usage; u != nil {
		rec.Args = append(rec.Args, audit.Arg{Name: "cpu_us", Value: strconv.FormatInt(u.CPUTime().Microseconds(), 10)})
	}
	if !info.Started.IsZero() && !info.Ended.IsZero() {
		rec.Duration = info.Ended.Sub(info.Started).Microseconds()
	}
	var ranges [][2]uint64
	var paths []string
	var trunc bool
	if span != nil {
		ranges = span.Ranges()
		paths, trunc = span.Paths()
	}
	if len(ranges) == 0 {
		// Through the sandbox's mount: the changes the mount attributed
		// to this execution (its actor is the execution's id).
		if fs != nil {
			ranges, paths, trunc = journalByActor(ctx, fs, start, info.ID)
		} else {
			trunc = true // the workspace could not be opened to read them
		}
	}
	for _, rg := range ranges {
		rec.Changes = append(rec.Changes, audit.Span{First: rg[0], Last: rg[1]})
	}
	rec.Paths, rec.Truncated = paths, trunc
	return rec
}

// RecordExecution appends to j, once execution e (started by the call of
// base in workspace base.Workspace of h) has ended, its ExecutionRecord
// and the policy records of the path refusals den counted (DenialRecords,
// each naming the execution). It returns the first error appending.
func RecordExecution(ctx context.Context, j audit.Journal, h *host.Host, base audit.Record, e *run.Execution, den *policy.Denials) error {
	<-e.Done()
	info := e.Info()
	var fs *vfs.FS
	if l, err := h.Acquire(ctx, base.Workspace); err == nil {
		defer l.Release()
		fs = l.Workspace().FS()
	}
	rec := ExecutionRecord(ctx, base, info, nil, fs, info.JournalStart)
	err := j.Append(ctx, &rec)
	if den != nil {
		ds, more := den.Take()
		for _, pr := range DenialRecords(rec, ds, more) {
			pr.Args = append(pr.Args, audit.Arg{Name: "execution", Value: info.ID})
			if aerr := j.Append(ctx, &pr); err == nil {
				err = aerr
			}
		}
	}
	return err
}

// journalByActor collects the changes after since made by actor, reading
// at most MaxExecJournalScan entries.
func journalByActor(ctx context.Context, fs *vfs.FS, since uint64, actor string) ([][2]uint64, []string, bool) {
	var ranges [][2]uint64
	var paths []string
	seen := map[string]bool{}
	trunc := false
	read := 0
	for read < MaxExecJournalScan {
		chs, err := fs.Changes(ctx, since, 1000)
		if err != nil || len(chs) == 0 {
			trunc = trunc || err != nil
			break
		}
		read += len(chs)
		for _, ch := range chs {
			since = ch.Seq
			if ch.Actor != actor {
				continue
			}
			if n := len(ranges); n > 0 && ranges[n-1][1]+1 == ch.Seq {
				ranges[n-1][1] = ch.Seq
			} else if n < vfs.MaxSpanRanges {
				ranges = append(ranges, [2]uint64{ch.Seq, ch.Seq})
			} else {
				ranges[n-1][1], trunc = ch.Seq, true
			}
			for _, p := range []string{ch.Path, ch.OldPath} {
				if p != "" && !seen[p] {
					if len(paths) >= vfs.MaxSpanPaths {
						trunc = true
						continue
					}
					seen[p] = true
					paths = append(paths, p)
				}
			}
		}
	}
	if read >= MaxExecJournalScan {
		trunc = true
	}
	return ranges, paths, trunc
}
