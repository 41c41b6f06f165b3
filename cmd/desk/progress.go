package main

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/desk-dev/desk/internal/fsio"
)

// progressMode says when a copy reports its progress on standard error.
type progressMode int

const (
	progressAuto   progressMode = iota // on a terminal only: one line, rewritten in place
	progressAlways                     // one line per report, terminal or not (--progress)
	progressNever                      // -q
)

// progressReporter prints a copy's progress on w: on a terminal, one line
// rewritten in place about once a second; with progressAlways, one line per
// report (what a script or a test reading a pipe can follow).
type progressReporter struct {
	w     io.Writer
	label string // "desk fs import", "desk cp"
	tty   bool
	mode  progressMode
	start time.Time

	mu      sync.Mutex
	drawn   bool // a terminal line is on the screen
	last    time.Time
	counted bool // fn has counted files (else only bytes are known)
}

func newProgress(w io.Writer, label string, mode progressMode) *progressReporter {
	return &progressReporter{w: w, label: label, tty: isTerminal(w), mode: mode, start: time.Now()}
}

// enabled reports whether anything is printed.
func (p *progressReporter) enabled() bool {
	return p.mode == progressAlways || p.mode == progressAuto && p.tty
}

// fn returns the callback for fsio's Progress, or nil when disabled.
func (p *progressReporter) fn() func(fsio.Progress) {
	if !p.enabled() {
		return nil
	}
	return func(pr fsio.Progress) {
		p.mu.Lock()
		defer p.mu.Unlock()
		p.counted = true
		p.print(fmt.Sprintf("%d files, %d entries, %s, %s", pr.Files, pr.Entries, humanBytes(pr.Bytes), rate(pr.Bytes, pr.Elapsed)))
	}
}

// print writes one report (the caller holds mu).
func (p *progressReporter) print(msg string) {
	if p.mode == progressAlways && !p.tty {
		fmt.Fprintf(p.w, "%s: %s\n", p.label, msg)
		return
	}
	fmt.Fprintf(p.w, "\r\x1b[K%s: %s", p.label, msg)
	p.drawn = true
}

// bytes counts transferred bytes (when nothing counts files): a reader or
// writer wrapper calls it; it reports about once a second.
func (p *progressReporter) bytes(n int64) {
	if !p.enabled() {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	if p.counted || now.Sub(p.last) < time.Second {
		return
	}
	p.last = now
	el := now.Sub(p.start)
	p.print(fmt.Sprintf("%s, %s", humanBytes(n), rate(n, el)))
}

// done clears the terminal line, if one is drawn.
func (p *progressReporter) done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.drawn = false
	}
}

// countingIO counts the bytes read or written through it for a reporter.
type countingIO struct {
	r io.Reader
	w io.Writer
	n int64
	p *progressReporter
}

func (c *countingIO) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.n += int64(n)
	c.p.bytes(c.n)
	return n, err
}

func (c *countingIO) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	c.n += int64(n)
	c.p.bytes(c.n)
	return n, err
}
