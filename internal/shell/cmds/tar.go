package cmds

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/desk-dev/desk/internal/vfs"
)

func init() { Register("tar", Tar) }

const tarHint = "Try 'tar --help' or 'tar --usage' for more information."

// tarState is one run of tar.
type tarState struct {
	fn                 fnCache
	env                *Env
	mode               byte // 'c', 'x' or 't'
	file               string
	dir                string
	verbose, gz, deref bool
	toStdout, keepOld  bool
	touch              bool
	strip              int
	excludes           []string
	members            []string
	matched            []bool
	failed             bool
	warnedSlash        bool
	ugsWidth           int
	archiveIno         uint64
	links              map[uint64]string
	dirs               []tarDirAttr
	symlinks           []tarSymlink
	verboseOut         io.Writer
	warnedDotDot       bool
}

type tarDirAttr struct {
	p     string
	mode  int64
	mtime time.Time
}

type tarSymlink struct {
	p, target string
	mtime     time.Time
}

// Tar is GNU tar's c, x and t: -f FILE ("-" or none: stdin/stdout), -C DIR,
// -v, -z (reading detects gzip by itself), -h, --exclude, -O,
// --strip-components, -k, -m, old-style bundled letters ("tar czf x.tgz d").
// Modes, symlinks, hard links and mtimes are preserved; a leading "/" is
// removed from member names with GNU's warning and members with ".." are
// refused. Owners are not restored.
func Tar(env *Env, args []string) int {
	rest := args[1:]
	// Old-style: the first argument without a dash is a bundle of letters
	// whose arguments follow in order.
	if len(rest) > 0 && rest[0] != "" && !strings.HasPrefix(rest[0], "-") {
		letters := rest[0]
		more := rest[1:]
		var conv []string
		for i := 0; i < len(letters); i++ {
			c := letters[i]
			if strings.IndexByte("fCTXb", c) >= 0 {
				if len(more) == 0 {
					fmt.Fprintf(env.Stderr, "tar: Old option '%c' requires an argument.\n%s\n", c, tarHint)
					return 2
				}
				conv = append(conv, "-"+string(c), more[0])
				more = more[1:]
				continue
			}
			conv = append(conv, "-"+string(c))
		}
		rest = append(conv, more...)
	}
	opts, operands, ok := auParseOpts(env, "tar", rest, optSpec{
		shorts: "cxtf:C:vzphkmOPb:",
		longs: []string{"create", "extract", "get", "list", "file=", "directory=", "verbose", "gzip", "gunzip",
			"ungzip", "preserve-permissions", "same-permissions", "dereference", "exclude=", "to-stdout",
			"strip-components=", "keep-old-files", "touch", "no-same-owner", "same-owner", "numeric-owner",
			"overwrite", "no-overwrite-dir", "absolute-names", "blocking-factor=", "help", "version",
			"auto-compress", "no-same-permissions"},
	}, tarHint)
	if !ok {
		return 2
	}
	s := &tarState{env: env, dir: env.Dir, ugsWidth: 19, links: map[uint64]string{}, fn: fnCache{}}
	modes := 0
	for _, o := range opts {
		switch o.name {
		case "c", "create":
			s.mode = 'c'
			modes++
		case "x", "extract", "get":
			s.mode = 'x'
			modes++
		case "t", "list":
			s.mode = 't'
			modes++
		case "f", "file":
			s.file = o.val
		case "C", "directory":
			s.dir = env.Abs(o.val)
			if fi, err := env.FS.Stat(env.Ctx, s.dir); err != nil || !fi.IsDir() {
				if err == nil {
					err = gnuMessage("Not a directory")
				}
				fmt.Fprintf(env.Stderr, "tar: %s: Cannot open: %s\ntar: Error is not recoverable: exiting now\n", o.val, Strerror(err))
				return 2
			}
		case "v", "verbose":
			s.verbose = true
		case "z", "gzip", "gunzip", "ungzip":
			s.gz = true
		case "h", "dereference":
			s.deref = true
		case "exclude":
			s.excludes = append(s.excludes, o.val)
		case "O", "to-stdout":
			s.toStdout = true
		case "strip-components":
			n, err := strconv.Atoi(o.val)
			if err != nil || n < 0 {
				fmt.Fprintf(env.Stderr, "tar: %s: Invalid number of elements\n%s\n", o.val, tarHint)
				return 2
			}
			s.strip = n
		case "k", "keep-old-files":
			s.keepOld = true
		case "m", "touch":
			s.touch = true
		case "help":
			fmt.Fprintf(env.Stdout, "Usage: tar [OPTION...] [FILE]...\n")
			return 0
		case "version":
			fmt.Fprintf(env.Stdout, "tar (GNU tar) 1.34\n")
			return 0
		}
	}
	if modes == 0 {
		fmt.Fprintf(env.Stderr, "tar: You must specify one of the '-Acdtrux', '--delete' or '--test-label' options\n%s\n", tarHint)
		return 2
	}
	if modes > 1 {
		fmt.Fprintf(env.Stderr, "tar: You may not specify more than one '-Acdtrux', '--delete' or  '--test-label' option\n%s\n", tarHint)
		return 2
	}
	if s.file == "" {
		s.file = "-"
	}
	s.members = operands
	s.matched = make([]bool, len(operands))
	var status int
	switch s.mode {
	case 'c':
		status = s.create(operands)
	default:
		status = s.read()
	}
	if status != 0 {
		return status
	}
	for i, m := range s.members {
		if !s.matched[i] && s.mode != 'c' {
			fmt.Fprintf(env.Stderr, "tar: %s: Not found in archive\n", m)
			s.failed = true
		}
	}
	if s.failed {
		fmt.Fprintf(env.Stderr, "tar: Exiting with failure status due to previous errors\n")
		return 2
	}
	return 0
}

func (s *tarState) errorf(format string, a ...any) {
	fmt.Fprintf(s.env.Stderr, "tar: "+format+"\n", a...)
	s.failed = true
}

func (s *tarState) fatal(format string, a ...any) int {
	fmt.Fprintf(s.env.Stderr, "tar: "+format+"\ntar: Error is not recoverable: exiting now\n", a...)
	return 2
}

// excluded reports whether an --exclude pattern matches the name or one of
// its trailing parts.
func (s *tarState) excluded(name string) bool {
	name = strings.TrimSuffix(name, "/")
	for _, pat := range s.excludes {
		pat = strings.TrimSuffix(pat, "/")
		// Any leading part of the name (a directory holding the member)
		// and any trailing part may match.
		for end := 0; end <= len(name); end++ {
			if end < len(name) && name[end] != '/' {
				continue
			}
			head := name[:end]
			if s.fn.match(pat, head, false) {
				return true
			}
			for i := 0; i < len(head); i++ {
				if head[i] == '/' && s.fn.match(pat, head[i+1:], false) {
					return true
				}
			}
		}
	}
	return false
}

// safeName strips leading slashes (warning once) as GNU tar does.
func (s *tarState) safeName(name string) string {
	if strings.HasPrefix(name, "/") {
		t := strings.TrimLeft(name, "/")
		if !s.warnedSlash {
			s.warnedSlash = true
			fmt.Fprintf(s.env.Stderr, "tar: Removing leading `/' from member names\n")
		}
		if t == "" {
			t = "."
		}
		return t
	}
	if strings.HasPrefix(name, "../") && !s.warnedDotDot {
		s.warnedDotDot = true
		fmt.Fprintf(s.env.Stderr, "tar: Removing leading `../' from member names\n")
	}
	return name
}

// create writes the archive.
func (s *tarState) create(operands []string) int {
	env := s.env
	if len(operands) == 0 {
		fmt.Fprintf(env.Stderr, "tar: Cowardly refusing to create an empty archive\n%s\n", tarHint)
		return 2
	}
	var out io.Writer
	var closer io.Closer
	s.verboseOut = env.Stdout
	if s.file == "-" {
		out = env.Stdout
		s.verboseOut = env.Stderr
	} else {
		h, err := env.FS.OpenFile(env.Ctx, env.Abs(s.file), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
		if err != nil {
			return s.fatal("%s: Cannot open: %s", s.file, Strerror(err))
		}
		if fi, err := h.Stat(); err == nil {
			s.archiveIno = fi.Attr().Ino
		}
		out, closer = h, h
	}
	bw := bufio.NewWriterSize(out, 64<<10)
	var zw *gzip.Writer
	var w io.Writer = bw
	if s.gz {
		zw = auGzipWriter(bw, 6, "", 0)
		w = zw
	}
	tw := tar.NewWriter(w)
	for _, op := range operands {
		if env.Canceled() {
			break
		}
		p := op
		if !strings.HasPrefix(op, "/") {
			p = path.Join(s.dir, op)
		}
		name := s.safeName(strings.TrimSuffix(op, "/"))
		if op == "/" {
			name = "."
		}
		if err := s.addPath(tw, op, vfs.Clean(p), name, true); err != nil {
			break
		}
	}
	err := tw.Close()
	if zw != nil && err == nil {
		err = zw.Close()
	}
	if err == nil {
		err = bw.Flush()
	}
	if closer != nil {
		if cerr := closer.Close(); err == nil {
			err = cerr
		}
	}
	if env.Canceled() {
		return 2
	}
	if err != nil && !s.failed {
		return s.fatal("%s: Cannot write: %s", s.file, Strerror(err))
	}
	return 0
}

// addPath archives p (shown as disp in diagnostics) under name. A non-nil
// error ends the archive (a write failure).
func (s *tarState) addPath(tw *tar.Writer, disp, p, name string, top bool) error {
	env := s.env
	if err := env.Ctx.Err(); err != nil {
		return err
	}
	if s.excluded(name) {
		return nil
	}
	var fi *vfs.FileInfo
	var err error
	if s.deref {
		fi, err = env.FS.Stat(env.Ctx, p)
	} else {
		fi, err = env.FS.Lstat(env.Ctx, p)
	}
	if err != nil {
		s.errorf("%s: Cannot stat: %s", disp, Strerror(err))
		return nil
	}
	a := fi.Attr()
	if s.archiveIno != 0 && a.Ino == s.archiveIno {
		fmt.Fprintf(env.Stderr, "tar: %s: file is the archive; not dumped\n", disp)
		return nil
	}
	hdr := &tar.Header{
		Name:    name,
		Mode:    int64(a.Mode & 0o7777),
		Uid:     int(a.Uid),
		Gid:     int(a.Gid),
		ModTime: a.Mtime.Truncate(time.Second),
		Format:  tar.FormatGNU,
	}
	if a.Uid == 0 {
		hdr.Uname = "root"
	}
	if a.Gid == 0 {
		hdr.Gname = "root"
	}
	switch {
	case a.IsDir():
		hdr.Typeflag = tar.TypeDir
		if !strings.HasSuffix(hdr.Name, "/") {
			hdr.Name += "/"
		}
	case a.IsSymlink():
		t, err := env.FS.Readlink(env.Ctx, p)
		if err != nil {
			s.errorf("%s: Cannot readlink: %s", disp, Strerror(err))
			return nil
		}
		hdr.Typeflag = tar.TypeSymlink
		hdr.Linkname = t
	case a.IsRegular():
		if a.Nlink > 1 && !s.deref {
			if first, ok := s.links[a.Ino]; ok {
				hdr.Typeflag = tar.TypeLink
				hdr.Linkname = first
				break
			}
			s.links[a.Ino] = name
		}
		hdr.Typeflag = tar.TypeReg
		hdr.Size = a.Size
	default:
		fmt.Fprintf(env.Stderr, "tar: %s: socket ignored\n", disp)
		return nil
	}
	if hdr.Name == "./" && !top {
		return nil
	}
	if s.verbose {
		fmt.Fprintln(s.verboseOut, hdr.Name)
	}
	if err := tw.WriteHeader(hdr); err != nil {
		s.errorf("%s: %s", disp, err)
		return err
	}
	if hdr.Typeflag == tar.TypeReg {
		h, err := env.FS.Open(env.Ctx, p)
		if err != nil {
			s.errorf("%s: Cannot open: %s", disp, Strerror(err))
			// Keep the archive well-formed: pad with zeros.
			_, werr := io.CopyN(tw, zeroReader{}, hdr.Size)
			return werr
		}
		n, err := io.Copy(tw, ctxReader{env, h})
		h.Close()
		if err != nil {
			if isCanceled(env, err) {
				return err
			}
			if n < hdr.Size {
				s.errorf("%s: Read error: %s", disp, Strerror(err))
				if _, werr := io.CopyN(tw, zeroReader{}, hdr.Size-n); werr != nil {
					return werr
				}
				return nil
			}
			return err
		}
		if n < hdr.Size {
			s.errorf("%s: File shrank by %d bytes; padding with zeros", disp, hdr.Size-n)
			_, werr := io.CopyN(tw, zeroReader{}, hdr.Size-n)
			return werr
		}
	}
	if hdr.Typeflag == tar.TypeDir {
		ents, err := fuReadDir(env, p)
		if err != nil {
			if isCanceled(env, err) {
				return err
			}
			s.errorf("%s: Cannot open: %s", disp, Strerror(err))
			return nil
		}
		for _, e := range ents {
			child := hdr.Name + e.Name
			if hdr.Name == "./" && name == "." {
				child = "./" + e.Name
			}
			if err := s.addPath(tw, fuJoinPath(disp, e.Name), path.Join(p, e.Name), child, false); err != nil {
				return err
			}
		}
	}
	return nil
}

type zeroReader struct{}

func (zeroReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 0
	}
	return len(p), nil
}

// memberMatch reports whether name is selected by the member operands (all
// when there are none): the name itself or a directory holding it.
func (s *tarState) memberMatch(name string) bool {
	if len(s.members) == 0 {
		return true
	}
	n := strings.TrimSuffix(name, "/")
	hit := false
	for i, m := range s.members {
		m = strings.TrimSuffix(m, "/")
		if n == m || strings.HasPrefix(n, m+"/") {
			s.matched[i] = true
			hit = true
		}
	}
	return hit
}

// read lists or extracts the archive.
func (s *tarState) read() int {
	env := s.env
	var in io.Reader
	if s.file == "-" {
		in = env.Stdin
	} else {
		h, err := env.FS.Open(env.Ctx, env.Abs(s.file))
		if err != nil {
			return s.fatal("%s: Cannot open: %s", s.file, Strerror(err))
		}
		defer h.Close()
		in = h
	}
	br := bufio.NewReaderSize(ctxReader{env, in}, 64<<10)
	var r io.Reader = br
	if b, _ := br.Peek(2); len(b) == 2 && b[0] == 0x1f && b[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return s.fatal("Child returned status 1")
		}
		r = zr
	} else if s.gz {
		fmt.Fprintf(env.Stderr, "\ngzip: stdin: not in gzip format\ntar: Child returned status 1\ntar: Error is not recoverable: exiting now\n")
		return 2
	}
	tr := tar.NewReader(r)
	first := true
	for {
		if env.Canceled() {
			return 2
		}
		hdr, err := tr.Next()
		if err == io.EOF {
			if first {
				s.errorf("This does not look like a tar archive")
			}
			break
		}
		if err != nil {
			if isCanceled(env, err) {
				return 2
			}
			if errors.Is(err, tar.ErrFieldTooLong) {
				// A PAX or GNU long-name record over archive/tar's 1 MiB:
				// refused before it is read whole (GNU tar would read it).
				return s.fatal("a header record is longer than 1 MiB, the limit of this tar")
			}
			if first {
				s.errorf("This does not look like a tar archive")
				break
			}
			if errors.Is(err, io.ErrUnexpectedEOF) {
				return s.fatal("Unexpected EOF in archive")
			}
			s.errorf("Skipping to next header")
			break
		}
		first = false
		s.entry(tr, hdr)
	}
	if s.mode == 'x' {
		s.finishExtract()
	}
	return 0
}

// entry lists or extracts one member.
func (s *tarState) entry(tr *tar.Reader, hdr *tar.Header) {
	env := s.env
	name := s.safeName(hdr.Name)
	if s.excluded(name) || !s.memberMatch(name) {
		return
	}
	if s.mode == 't' {
		// GNU tar warns but lists the names as stored.
		if s.verbose {
			s.listLong(hdr, hdr.Name)
		} else {
			fmt.Fprintln(env.Stdout, hdr.Name)
		}
		return
	}
	if s.toStdout {
		if s.verbose {
			fmt.Fprintln(env.Stderr, name)
		}
		if hdr.Typeflag == tar.TypeReg {
			if _, err := io.Copy(env.Stdout, tr); err != nil && !isCanceled(env, err) {
				s.errorf("%s: Read error: %s", name, Strerror(err))
			}
		}
		return
	}
	rel, ok := s.relName(name)
	if !ok {
		return
	}
	if s.verbose {
		fmt.Fprintln(env.Stdout, name)
	}
	p := path.Join(s.dir, rel)
	mtime := hdr.ModTime
	if s.touch {
		mtime = env.Clock()
	}
	mode := fuPermOf(uint32(hdr.Mode) & 0o7777)
	// Parents are created as needed (they were maybe not in the archive).
	if err := env.FS.MkdirAll(env.Ctx, path.Dir(p), 0o755); err != nil {
		s.errorf("%s: Cannot mkdir: %s", name, Strerror(err))
		return
	}
	existing, lerr := env.FS.Lstat(env.Ctx, p)
	exists := lerr == nil
	switch hdr.Typeflag {
	case tar.TypeDir:
		if exists && !existing.IsDir() {
			if s.keepOld {
				s.errorf("%s: Cannot mkdir: File exists", name)
				return
			}
			env.FS.Remove(env.Ctx, p)
			exists = false
		}
		if !exists {
			if err := env.FS.Mkdir(env.Ctx, p, 0o700); err != nil {
				s.errorf("%s: Cannot mkdir: %s", name, Strerror(err))
				return
			}
		}
		s.dirs = append(s.dirs, tarDirAttr{p, hdr.Mode & 0o7777, mtime})
	case tar.TypeReg:
		if exists {
			if s.keepOld {
				s.errorf("%s: Cannot open: File exists", name)
				return
			}
			if existing.IsDir() {
				s.errorf("%s: Cannot open: Is a directory", name)
				return
			}
			env.FS.Remove(env.Ctx, p)
		}
		h, err := env.FS.OpenFile(env.Ctx, p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			s.errorf("%s: Cannot open: %s", name, Strerror(err))
			return
		}
		bw := bufio.NewWriterSize(h, 64<<10)
		_, err = io.Copy(bw, tr)
		if err == nil {
			err = bw.Flush()
		}
		if cerr := h.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			if !isCanceled(env, err) {
				s.errorf("%s: Cannot write: %s", name, Strerror(err))
			}
			return
		}
		env.FS.Chmod(env.Ctx, p, mode)
		env.FS.Utimens(env.Ctx, p, mtime, mtime, false)
	case tar.TypeLink:
		trel, ok := s.relName(s.safeName(hdr.Linkname))
		if !ok {
			return
		}
		if exists {
			if s.keepOld {
				return
			}
			env.FS.Remove(env.Ctx, p)
		}
		if err := env.FS.Link(env.Ctx, path.Join(s.dir, trel), p); err != nil {
			s.errorf("%s: Cannot hard link to %s: %s", name, quote(env, hdr.Linkname), Strerror(err))
		}
	case tar.TypeSymlink:
		if exists {
			if s.keepOld {
				s.errorf("%s: Cannot create symlink to %s: File exists", name, quote(env, hdr.Linkname))
				return
			}
		}
		// Symlinks are made last, so that no member is written through one.
		s.symlinks = append(s.symlinks, tarSymlink{p, hdr.Linkname, mtime})
	default:
		fmt.Fprintf(env.Stderr, "tar: %s: Unknown file type '%c', extracted as normal file\n", name, hdr.Typeflag)
	}
}

// relName applies --strip-components and refuses ".." members; ok false
// means skip the member.
func (s *tarState) relName(name string) (string, bool) {
	for _, c := range strings.Split(name, "/") {
		if c == ".." {
			s.errorf("%s: Member name contains '..'", name)
			return "", false
		}
	}
	if s.strip > 0 {
		parts := strings.Split(strings.TrimSuffix(name, "/"), "/")
		if len(parts) <= s.strip {
			return "", false
		}
		name = strings.Join(parts[s.strip:], "/")
	}
	c := vfs.Clean("/" + name)
	if c == "/" {
		return ".", true
	}
	return c[1:], true
}

// finishExtract makes the delayed symlinks and sets directory attributes,
// deepest first.
func (s *tarState) finishExtract() {
	env := s.env
	for _, l := range s.symlinks {
		if fi, err := env.FS.Lstat(env.Ctx, l.p); err == nil {
			if fi.IsDir() {
				s.errorf("%s: Cannot create symlink to %s: File exists", l.p, quote(env, l.target))
				continue
			}
			env.FS.Remove(env.Ctx, l.p)
		}
		if err := env.FS.Symlink(env.Ctx, l.target, l.p); err != nil {
			s.errorf("%s: Cannot create symlink to %s: %s", l.p, quote(env, l.target), Strerror(err))
			continue
		}
		env.FS.Utimens(env.Ctx, l.p, l.mtime, l.mtime, true)
	}
	sort.SliceStable(s.dirs, func(i, j int) bool { return len(s.dirs[i].p) > len(s.dirs[j].p) })
	for _, d := range s.dirs {
		env.FS.Chmod(env.Ctx, d.p, fuPermOf(uint32(d.mode)))
		env.FS.Utimens(env.Ctx, d.p, d.mtime, d.mtime, false)
	}
}

// listLong prints one tar -tv line as GNU tar does.
func (s *tarState) listLong(hdr *tar.Header, name string) {
	m := uint32(hdr.Mode) & 0o7777
	var typ uint32 = vfs.S_IFREG
	switch hdr.Typeflag {
	case tar.TypeDir:
		typ = vfs.S_IFDIR
	case tar.TypeSymlink:
		typ = vfs.S_IFLNK
	}
	modes := []byte(vfs.ModeString(typ | m))
	if hdr.Typeflag == tar.TypeLink {
		modes[0] = 'h'
	}
	user := hdr.Uname
	if user == "" {
		user = strconv.Itoa(hdr.Uid)
	}
	group := hdr.Gname
	if group == "" {
		group = strconv.Itoa(hdr.Gid)
	}
	size := strconv.FormatInt(hdr.Size, 10)
	pad := len(user) + 1 + len(group) + 1 + len(size)
	if pad > s.ugsWidth {
		s.ugsWidth = pad
	}
	t := hdr.ModTime.UTC()
	line := fmt.Sprintf("%s %s/%s %*s %-16s %s", modes, user, group, s.ugsWidth-pad+len(size), size,
		t.Format("2006-01-02 15:04"), name)
	switch hdr.Typeflag {
	case tar.TypeSymlink:
		line += " -> " + hdr.Linkname
	case tar.TypeLink:
		line += " link to " + hdr.Linkname
	}
	fmt.Fprintln(s.env.Stdout, line)
}
