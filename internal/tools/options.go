package tools

import (
	"errors"

	"time"

	"github.com/desk-dev/desk/internal/search"
	"github.com/desk-dev/desk/internal/share"
)

// Defaults for Options. A zero field takes its default.
const (
	DefaultMaxReadLines     = 2000      // lines one read returns
	DefaultMaxReadBytes     = 256 << 10 // text bytes one read returns
	DefaultMaxLineBytes     = 2000      // a longer line is cut, with a marker
	DefaultMaxImageBytes    = 5 << 20   // images returned as image content
	DefaultMaxWriteBytes    = 2 << 20   // content one write takes
	DefaultMaxEditFileBytes = 8 << 20   // files edit works on
	DefaultMaxDiffBytes     = 64 << 10  // edit's diff is cut here
	DefaultListLimit        = 500       // ls, find: entries per page without limit
	DefaultMaxListLimit     = 5000      // ls, find: the largest page
	DefaultGrepLimit        = 100       // grep: matches per page without limit
	DefaultMaxGrepLimit     = 1000      // grep: the largest page
	DefaultMaxGrepContext   = 10        // grep: context lines on each side
	DefaultMaxGrepLineBytes = 500       // grep cuts longer lines
	DefaultMaxExecOutput    = 30_000    // exec output shown to the model: head + tail
	DefaultProgressInterval = 200 * time.Millisecond
	DefaultMaxRevisionScan  = 100_000 // journal entries an expected_revision check reads
	DefaultLineIndexFiles   = 256     // files whose continuation offsets are remembered
	DefaultActor            = "tool"
)

// Defaults of the search limits: package search's, one set of numbers for
// the HTTP API and the agent tools.
const (
	DefaultMaxWalk          = search.DefaultMaxEntries      // entries one find or grep visits
	DefaultMaxGrepFileBytes = search.DefaultMaxFileBytes    // grep skips larger files
	DefaultMaxPatternBytes  = search.DefaultMaxPatternBytes // globs and grep queries
	DefaultMaxGrepBytes     = search.DefaultMaxBytes        // grep: file bytes read per call
	DefaultMaxRegexpInsts   = search.DefaultMaxRegexpInsts  // grep: compiled program of a query
	DefaultMaxSearchTime    = search.DefaultMaxTime         // find, grep: one call
)

// Options configure a Set. Every cap is a field with a documented default;
// the zero value gives the defaults, negative values are an error.
type Options struct {
	// ReadOnly limits the set to read, ls, find and grep; the other tools
	// fail with CodeForbidden. For read-only tokens.
	ReadOnly bool
	// MaxReadLines bounds the lines one read returns. Default 2000.
	MaxReadLines int
	// MaxReadBytes bounds the text one read returns. Default 256 KiB.
	MaxReadBytes int
	// MaxLineBytes cuts longer lines in read output, with a marker saying how
	// many bytes were left out. Default 2000.
	MaxLineBytes int
	// MaxImageBytes bounds an image read returns as image content. Default 5 MiB.
	MaxImageBytes int64
	// MaxWriteBytes bounds the content of one write (larger: use edit, or
	// several steps). Default 2 MiB.
	MaxWriteBytes int
	// MaxEditFileBytes bounds the size of a file edit works on. Default 8 MiB.
	MaxEditFileBytes int64
	// MaxDiffBytes cuts the unified diff edit returns. Default 64 KiB.
	MaxDiffBytes int
	// DefaultListLimit and MaxListLimit are the page size of ls and find
	// without a limit (500) and the largest one allowed (5000).
	DefaultListLimit int
	MaxListLimit     int
	// DefaultGrepLimit and MaxGrepLimit are grep's page size without a limit
	// (100 matches) and the largest one allowed (1000).
	DefaultGrepLimit int
	MaxGrepLimit     int
	// MaxGrepContext bounds grep's context lines on each side. Default 10.
	MaxGrepContext int
	// MaxWalk bounds the directory entries one find or grep call visits;
	// past it the result says the search was cut short. Default 100,000.
	MaxWalk int
	// MaxGrepFileBytes: grep skips larger files (counted). Default 8 MiB.
	MaxGrepFileBytes int64
	// MaxGrepLineBytes cuts the text of grep's lines. Default 500.
	MaxGrepLineBytes int
	// MaxPatternBytes bounds find patterns and grep queries. Default 1024.
	MaxPatternBytes int
	// MaxGrepBytes bounds the file bytes one grep call reads; past it the
	// result says the search was cut short. Default 64 MiB.
	MaxGrepBytes int64
	// MaxRegexpInsts bounds the compiled program of a grep query (RE2
	// instructions; matching costs up to one step per instruction per
	// byte): a larger query is refused. Default 2000.
	MaxRegexpInsts int
	// MaxSearchTime bounds one find or grep call; past it the result says
	// the search was cut short. Default 30s.
	MaxSearchTime time.Duration
	// MaxExecOutput bounds the output exec shows the model, per stream: the
	// first and the last half are kept with the elided byte count between
	// them. The execution record keeps the output under the runtime's own
	// OutputLimit. Default 30,000 bytes.
	MaxExecOutput int
	// ProgressInterval is the least time between two progress reports of an
	// exec call. Default 200ms.
	ProgressInterval time.Duration
	// MaxRevisionScan bounds the journal entries read to check an
	// expected_revision; a revision further back is a conflict (read the file
	// again). Default 100,000.
	MaxRevisionScan int
	// LineIndexFiles is how many files' continuation offsets (line → byte)
	// are remembered, so that a continued read starts where the last one
	// stopped without reading the file's prefix again. Default 256.
	LineIndexFiles int
	// Publisher makes the publish tool's links (share.Workspace); nil: no
	// publish tool.
	Publisher Publisher
	// MaxPublishBytes is the largest file publish takes, as its
	// description states it: the Publisher's bound (share.Options.
	// MaxFileBytes). Default share.DefaultMaxFileBytes (1 GiB).
	MaxPublishBytes int64
	// Actor labels the tools' changes in the change journal (vfs.WithActor).
	// Default "tool".
	Actor string
}

func (o *Options) setDefaults() error {
	for _, v := range []int64{int64(o.MaxReadLines), int64(o.MaxReadBytes), int64(o.MaxLineBytes), o.MaxImageBytes,
		int64(o.MaxWriteBytes), o.MaxEditFileBytes, int64(o.MaxDiffBytes), int64(o.DefaultListLimit), int64(o.MaxListLimit),
		int64(o.DefaultGrepLimit), int64(o.MaxGrepLimit), int64(o.MaxGrepContext), int64(o.MaxWalk),
		o.MaxGrepFileBytes, int64(o.MaxGrepLineBytes), int64(o.MaxPatternBytes), int64(o.MaxExecOutput),
		int64(o.ProgressInterval), int64(o.MaxRevisionScan), int64(o.LineIndexFiles), o.MaxPublishBytes} {
		if v < 0 {
			return errors.New("new tool set: negative option")
		}
	}
	defi := func(p *int, d int) {
		if *p == 0 {
			*p = d
		}
	}
	def64 := func(p *int64, d int64) {
		if *p == 0 {
			*p = d
		}
	}
	defi(&o.MaxReadLines, DefaultMaxReadLines)
	defi(&o.MaxReadBytes, DefaultMaxReadBytes)
	defi(&o.MaxLineBytes, DefaultMaxLineBytes)
	def64(&o.MaxImageBytes, DefaultMaxImageBytes)
	defi(&o.MaxWriteBytes, DefaultMaxWriteBytes)
	def64(&o.MaxEditFileBytes, DefaultMaxEditFileBytes)
	defi(&o.MaxDiffBytes, DefaultMaxDiffBytes)
	defi(&o.DefaultListLimit, DefaultListLimit)
	defi(&o.MaxListLimit, DefaultMaxListLimit)
	defi(&o.DefaultGrepLimit, DefaultGrepLimit)
	defi(&o.MaxGrepLimit, DefaultMaxGrepLimit)
	defi(&o.MaxGrepContext, DefaultMaxGrepContext)
	defi(&o.MaxWalk, DefaultMaxWalk)
	def64(&o.MaxGrepFileBytes, DefaultMaxGrepFileBytes)
	defi(&o.MaxGrepLineBytes, DefaultMaxGrepLineBytes)
	defi(&o.MaxPatternBytes, DefaultMaxPatternBytes)
	def64(&o.MaxGrepBytes, DefaultMaxGrepBytes)
	defi(&o.MaxRegexpInsts, DefaultMaxRegexpInsts)
	if o.MaxSearchTime == 0 {
		o.MaxSearchTime = DefaultMaxSearchTime
	}
	defi(&o.MaxExecOutput, DefaultMaxExecOutput)
	if o.ProgressInterval == 0 {
		o.ProgressInterval = DefaultProgressInterval
	}
	defi(&o.MaxRevisionScan, DefaultMaxRevisionScan)
	defi(&o.LineIndexFiles, DefaultLineIndexFiles)
	def64(&o.MaxPublishBytes, share.DefaultMaxFileBytes)
	if o.Actor == "" {
		o.Actor = DefaultActor
	}
	o.DefaultListLimit = min(o.DefaultListLimit, o.MaxListLimit)
	o.DefaultGrepLimit = min(o.DefaultGrepLimit, o.MaxGrepLimit)
	return nil
}
