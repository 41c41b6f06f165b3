package interp

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"mvdan.cc/sh/v3/syntax"
)

// fdesc is an open file descriptor of the shell.
type fdesc struct {
	r       io.Reader
	w       io.Writer
	noStdin bool
	name    string
}

type eofReader struct{}

func (eofReader) Read([]byte) (int, error) { return 0, io.EOF }

type badReader struct{}

func (badReader) Read([]byte) (int, error) { return 0, syscall.EBADF }

type badWriter struct{}

func (badWriter) Write([]byte) (int, error) { return 0, syscall.EBADF }

type devNull struct{}

func (devNull) Read([]byte) (int, error)    { return 0, io.EOF }
func (devNull) Write(p []byte) (int, error) { return len(p), nil }
func (devNull) Close() error                { return nil }

type devZero struct{}

func (devZero) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}
func (devZero) Write(p []byte) (int, error) { return len(p), nil }
func (devZero) Close() error                { return nil }

type devRandom struct{}

func (devRandom) Read(p []byte) (int, error)  { return rand.Read(p) }
func (devRandom) Write(p []byte) (int, error) { return len(p), nil }
func (devRandom) Close() error                { return nil }

type rwc struct {
	io.Reader
	io.Writer
}

func (rwc) Close() error { return nil }

// pipe is an in-process pipe: a write blocks until read; once the reader
// is closed writes fail with EPIPE.
type pipe struct {
	mu    sync.Mutex
	cond  *sync.Cond
	block func() (resume func()) // Config.Block

	buf    []byte
	closed bool // writer closed
	rdone  bool // reader closed
}

type pipeReader struct{ p *pipe }
type pipeWriter struct{ p *pipe }

const pipeBuf = 64 << 10

func newPipe(block func() (resume func())) (*pipeReader, *pipeWriter) {
	p := &pipe{block: block}
	p.cond = sync.NewCond(&p.mu)
	return &pipeReader{p}, &pipeWriter{p}
}

// wait waits for the other end, telling Config.Block.
func (p *pipe) wait() {
	if p.block == nil {
		p.cond.Wait()
		return
	}
	resume := p.block()
	p.cond.Wait()
	resume()
}

func (w *pipeWriter) Write(b []byte) (int, error) {
	p := w.p
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for len(b) > 0 {
		for len(p.buf) >= pipeBuf && !p.rdone {
			p.wait()
		}
		if p.rdone {
			return n, syscall.EPIPE
		}
		k := min(len(b), pipeBuf-len(p.buf))
		p.buf = append(p.buf, b[:k]...)
		b = b[k:]
		n += k
		p.cond.Broadcast()
	}
	return n, nil
}

func (w *pipeWriter) Close() error {
	w.p.mu.Lock()
	w.p.closed = true
	w.p.cond.Broadcast()
	w.p.mu.Unlock()
	return nil
}

func (r *pipeReader) Read(b []byte) (int, error) {
	p := r.p
	p.mu.Lock()
	defer p.mu.Unlock()
	for len(p.buf) == 0 && !p.closed && !p.rdone {
		p.wait()
	}
	if len(p.buf) == 0 {
		return 0, io.EOF
	}
	n := copy(b, p.buf)
	p.buf = p.buf[n:]
	if len(p.buf) == 0 {
		p.buf = nil
	}
	p.cond.Broadcast()
	return n, nil
}

func (r *pipeReader) Close() error {
	r.p.mu.Lock()
	r.p.rdone = true
	r.p.buf = nil
	r.p.cond.Broadcast()
	r.p.mu.Unlock()
	return nil
}

// pathErr is a bash-worded file error: "name: No such file or directory".
type pathErr struct {
	name string
	err  error
}

func (e pathErr) Error() string { return e.name + ": " + errText(e.err) }

// errText words an error as strerror does.
func errText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	var en syscall.Errno
	if errors.As(err, &en) {
		s := en.Error()
		return strings.ToUpper(s[:1]) + s[1:]
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "No such file or directory"
	case errors.Is(err, fs.ErrExist):
		return "File exists"
	case errors.Is(err, fs.ErrPermission):
		return "Permission denied"
	}
	return err.Error()
}

// openFile opens a path for a redirection: /dev files are virtual, the
// rest goes to Files.
func (r *Runner) openFile(name string, flag int, perm fs.FileMode) (io.ReadWriteCloser, error) {
	switch name {
	case "/dev/null":
		return devNull{}, nil
	case "/dev/zero":
		return devZero{}, nil
	case "/dev/urandom", "/dev/random":
		return devRandom{}, nil
	case "/dev/stdin":
		return rwc{Reader: r.stdin(), Writer: badWriter{}}, nil
	case "/dev/stdout":
		return rwc{Reader: badReader{}, Writer: r.stdout()}, nil
	case "/dev/stderr":
		return rwc{Reader: badReader{}, Writer: r.stderr()}, nil
	case "/dev/tty":
		return nil, pathErr{name, syscall.ENXIO}
	}
	if n, ok := strings.CutPrefix(name, "/dev/fd/"); ok {
		fd, err := strconv.Atoi(n)
		if f := r.fds[fd]; err == nil && f != nil {
			var rd io.Reader = badReader{}
			var wr io.Writer = badWriter{}
			if f.r != nil {
				rd = f.r
			}
			if f.w != nil {
				wr = f.w
			}
			return rwc{rd, wr}, nil
		}
		return nil, pathErr{name, syscall.ENOENT}
	}
	abs := r.abs(name)
	if abs == "/dev" || strings.HasPrefix(abs, "/dev/") {
		return nil, pathErr{name, syscall.EACCES}
	}
	if r.cfg.Files == nil {
		return nil, pathErr{name, syscall.ENOENT}
	}
	f, err := r.cfg.Files.Open(r.ctx, abs, flag, perm)
	if err != nil {
		return nil, pathErr{name, err}
	}
	return f, nil
}

// redirect applies redirections; restore undoes them (unless permanent,
// for exec).
func (r *Runner) redirect(rs []*syntax.Redirect, permanent bool) (func(), error) {
	saved := map[int]*fdesc{}
	var opened []io.Closer
	restore := func() {
		for _, c := range opened {
			c.Close()
		}
		for fd, d := range saved {
			if d == nil {
				delete(r.fds, fd)
			} else {
				r.fds[fd] = d
			}
		}
	}
	save := func(fd int) {
		if permanent {
			return
		}
		if _, ok := saved[fd]; !ok {
			saved[fd] = r.fds[fd]
		}
	}
	for _, rd := range rs {
		fd := -1
		varName := ""
		if rd.N != nil {
			if strings.HasPrefix(rd.N.Value, "{") {
				varName = strings.Trim(rd.N.Value, "{}")
			} else {
				n, err := strconv.Atoi(rd.N.Value)
				if err != nil {
					restore()
					return nil, fmt.Errorf("%s: bad file descriptor", rd.N.Value)
				}
				fd = n
			}
		}
		if fd < 0 {
			switch rd.Op {
			case syntax.RdrIn, syntax.RdrInOut, syntax.DplIn, syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
				fd = 0
			default:
				fd = 1
			}
		}
		if varName != "" {
			if rd.Op == syntax.DplOut || rd.Op == syntax.DplIn {
				// {v}>&- closes the fd the variable names
				t, _ := r.literal(rd.Word)
				if t == "-" {
					n, _ := strconv.Atoi(r.getStr(varName))
					save(n)
					delete(r.fds, n)
					continue
				}
			}
			fd = 10
			for r.fds[fd] != nil {
				fd++
			}
			if err := r.setStr(varName, strconv.Itoa(fd)); err != nil {
				restore()
				return nil, err
			}
			permanentFd := true
			_ = permanentFd
		}
		if fd > 1023 {
			restore()
			return nil, fmt.Errorf("%d: Bad file descriptor", fd)
		}
		switch rd.Op {
		case syntax.Hdoc, syntax.DashHdoc:
			body, err := r.hdoc(rd)
			if err != nil {
				restore()
				return nil, err
			}
			save(fd)
			r.fds[fd] = &fdesc{r: strings.NewReader(body)}
			continue
		case syntax.WordHdoc:
			s, err := r.literal(rd.Word)
			if err != nil {
				restore()
				return nil, err
			}
			save(fd)
			// the word and a newline, without a copy of the word
			r.fds[fd] = &fdesc{r: io.MultiReader(strings.NewReader(s), strings.NewReader("\n"))}
			continue
		}
		target, err := r.literal(rd.Word)
		if err != nil {
			restore()
			return nil, err
		}
		switch rd.Op {
		case syntax.DplIn, syntax.DplOut:
			if target == "-" {
				save(fd)
				delete(r.fds, fd)
				continue
			}
			move := strings.HasSuffix(target, "-")
			t := strings.TrimSuffix(target, "-")
			n, err := strconv.Atoi(t)
			if err != nil {
				if rd.Op == syntax.DplOut && rd.N == nil {
					// >&file is &>file
					f, err := r.openFile(target, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
					if err != nil {
						restore()
						return nil, err
					}
					opened = append(opened, f)
					save(1)
					save(2)
					r.fds[1] = &fdesc{w: f}
					r.fds[2] = &fdesc{w: f}
					continue
				}
				restore()
				return nil, fmt.Errorf("%s: ambiguous redirect", target)
			}
			src := r.fds[n]
			if src == nil {
				restore()
				return nil, fmt.Errorf("%d: Bad file descriptor", n)
			}
			save(fd)
			c := *src
			r.fds[fd] = &c
			if move && n != fd {
				save(n)
				delete(r.fds, n)
			}
			continue
		}
		var flag int
		switch rd.Op {
		case syntax.RdrIn:
			flag = os.O_RDONLY
		case syntax.RdrInOut:
			flag = os.O_RDWR | os.O_CREATE
		case syntax.RdrOut, syntax.RdrAll:
			flag = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
			if r.opts["noclobber"] {
				if fi, err := r.statPath(target, true); err == nil && fi.Mode().IsRegular() {
					restore()
					return nil, fmt.Errorf("%s: cannot overwrite existing file", target)
				}
			}
		case syntax.RdrClob:
			flag = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
		case syntax.AppOut, syntax.AppAll:
			flag = os.O_WRONLY | os.O_CREATE | os.O_APPEND
		default:
			restore()
			return nil, fmt.Errorf("unsupported redirection %s", rd.Op)
		}
		if target == "" {
			restore()
			return nil, fmt.Errorf(": No such file or directory")
		}
		f, err := r.openFile(target, flag, 0o644)
		if err != nil {
			restore()
			return nil, err
		}
		if permanent || varName != "" {
			r.closers = append(r.closers, f)
		} else {
			opened = append(opened, f)
		}
		d := &fdesc{name: target}
		if flag&(os.O_WRONLY|os.O_RDWR) != 0 {
			d.w = f
		}
		if flag&os.O_WRONLY == 0 {
			d.r = f
		}
		if rd.Op == syntax.RdrAll || rd.Op == syntax.AppAll {
			save(1)
			save(2)
			r.fds[1] = d
			r.fds[2] = d
			continue
		}
		if varName != "" {
			r.fds[fd] = d
			continue
		}
		save(fd)
		r.fds[fd] = d
	}
	if permanent {
		return func() {}, nil
	}
	return restore, nil
}

// hdoc expands a here-document's body.
func (r *Runner) hdoc(rd *syntax.Redirect) (string, error) {
	if rd.Hdoc == nil {
		return "", nil
	}
	quoted := false
	for _, p := range rd.Word.Parts {
		switch p := p.(type) {
		case *syntax.SglQuoted, *syntax.DblQuoted:
			quoted = true
		case *syntax.Lit:
			if strings.Contains(p.Value, `\`) {
				quoted = true
			}
		}
	}
	var body string
	if quoted {
		var b strings.Builder
		for _, p := range rd.Hdoc.Parts {
			if l, ok := p.(*syntax.Lit); ok {
				b.WriteString(l.Value)
			}
		}
		body = b.String()
	} else {
		segs, err := r.segs(rd.Hdoc.Parts, true)
		if err != nil {
			return "", err
		}
		texts := make([]string, len(segs))
		for i, s := range segs {
			texts[i] = s.text
			if s.brk {
				texts[i] = " "
			}
		}
		if body, err = r.concat(texts...); err != nil {
			return "", err
		}
	}
	if rd.Op == syntax.DashHdoc {
		lines := strings.SplitAfter(body, "\n")
		for i, l := range lines {
			lines[i] = strings.TrimLeft(l, "\t")
		}
		var err error
		if body, err = r.join(lines, ""); err != nil {
			return "", err
		}
	}
	return body, nil
}

// procSubst runs <(...) or >(...) concurrently, connected by an in-process
// pipe named /dev/fd/N.
func (r *Runner) procSubst(p *syntax.ProcSubst) (string, error) {
	fd := 63
	for r.fds[fd] != nil && fd > 10 {
		fd--
	}
	pr, pw := newPipe(r.sh.cfg.Block)
	c := r.sub()
	if err := r.enter(); err != nil {
		return "", err
	}
	done := make(chan struct{})
	if p.Op == syntax.CmdIn {
		c.fds[1] = &fdesc{w: pw}
		r.fds[fd] = &fdesc{r: pr}
	} else {
		c.fds[0] = &fdesc{r: pr}
		r.fds[fd] = &fdesc{w: pw}
	}
	r.goSafe(func() {
		defer close(done)
		defer r.leave()
		err := c.stmts(p.Stmts)
		c.finish(err)
		if p.Op == syntax.CmdIn {
			pw.Close()
		} else {
			pr.Close()
		}
	})
	r.procs = append(r.procs, procEnd{fd: fd, pr: pr, pw: pw, done: done, in: p.Op == syntax.CmdIn})
	return "/dev/fd/" + strconv.Itoa(fd), nil
}

type procEnd struct {
	fd   int
	pr   *pipeReader
	pw   *pipeWriter
	done chan struct{}
	in   bool
}

// endProcs closes the process substitutions of the command that just ran.
func (r *Runner) endProcs(from int) {
	for _, p := range r.procs[from:] {
		if p.in {
			p.pr.Close()
		} else {
			p.pw.Close()
		}
		<-p.done
		delete(r.fds, p.fd)
	}
	r.procs = r.procs[:from]
}

func (r *Runner) statPath(name string, follow bool) (fs.FileInfo, error) {
	if r.cfg.Files == nil {
		return nil, syscall.ENOENT
	}
	return r.cfg.Files.Stat(r.ctx, r.abs(name), follow)
}
