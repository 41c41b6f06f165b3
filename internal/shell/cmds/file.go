package cmds

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"unicode/utf8"
)

func init() { Register("file", File) }

// File is a subset of file(1) 5.44: it names each operand's type from the
// first bytes through Env.FS: empty, directory, symbolic link to X, ASCII /
// Unicode (UTF-8) text with "with CRLF line terminators", "with very long
// lines (N)" and "with no line terminators", shell / Python scripts from
// their #! line, JSON text data, and magic for PNG (size, depth, colour
// type, interlace), JPEG (JFIF), GIF (version, size), gzip, POSIX tar, ELF
// (class and byte order), PDF (version), Zip; "data" otherwise. -b
// (--brief) drops the name, -i (--mime) prints MIME type and charset,
// --mime-type only the type, -L follows symlinks (-h, the default, not).
// Many of file's magic entries are missing: an unknown binary is "data".
func File(env *Env, args []string) int {
	opts, names, ok := parseOpts(env, "file", args[1:], optSpec{
		shorts: "bihLz",
		longs:  []string{"brief", "mime", "mime-type", "mime-encoding", "dereference", "no-dereference"},
	})
	if !ok {
		return 1
	}
	brief, mime, follow := false, 0, false
	for _, o := range opts {
		switch o.name {
		case "b", "brief":
			brief = true
		case "i", "mime":
			mime = 1
		case "mime-type":
			mime = 2
		case "mime-encoding":
			mime = 3
		case "L", "dereference":
			follow = true
		case "h", "no-dereference":
			follow = false
		}
	}
	if len(names) == 0 {
		fmt.Fprint(env.Stderr, "Usage: file [-bcCdEhikLlNnprsSvzZ0] [--apple] [--extension] [--mime-encoding]\n"+
			"            [--mime-type] [-e <testname>] [-F <separator>]  [-f <namefile>]\n"+
			"            [-m <magicfiles>] [-P <parameter=value>] [--exclude-quiet]\n"+
			"            <file> ...\n       file -C [-m <magicfiles>]\n       file [--help]\n")
		return 1
	}
	width := 0
	for _, n := range names {
		width = max(width, len(n))
	}
	for _, n := range names {
		if env.Canceled() {
			return 1
		}
		desc, mt, cs := fileType(env, n, follow)
		out := desc
		switch mime {
		case 1:
			out = mt + "; charset=" + cs
		case 2:
			out = mt
		case 3:
			out = cs
		}
		if brief {
			fmt.Fprintln(env.Stdout, out)
		} else {
			fmt.Fprintf(env.Stdout, "%-*s %s\n", width+1, n+":", out)
		}
	}
	return 0
}

// fileType describes one operand: file's text, MIME type and charset.
func fileType(env *Env, name string, follow bool) (string, string, string) {
	p := env.Abs(name)
	fi, err := env.FS.Lstat(env.Ctx, p)
	if err == nil && follow && fi.Mode()&fs.ModeSymlink != 0 {
		fi, err = env.FS.Stat(env.Ctx, p)
	}
	if err != nil {
		return fmt.Sprintf("cannot open `%s' (%s)", name, Strerror(err)), "cannot open", "binary"
	}
	m := fi.Mode()
	switch {
	case m&fs.ModeSymlink != 0:
		t, _ := env.FS.Readlink(env.Ctx, p)
		return "symbolic link to " + t, "inode/symlink", "binary"
	case m.IsDir():
		return "directory", "inode/directory", "binary"
	case !m.IsRegular():
		return "special", "inode/special", "binary"
	case fi.Size() == 0:
		return "empty", "inode/x-empty", "binary"
	}
	f, err := env.FS.Open(env.Ctx, p)
	if err != nil {
		return fmt.Sprintf("cannot open `%s' (%s)", name, Strerror(err)), "cannot open", "binary"
	}
	defer f.Close()
	// file(1) looks at the first megabyte at most.
	b, err := io.ReadAll(io.LimitReader(ctxReader{env, f}, 1<<20))
	if err != nil {
		return fmt.Sprintf("cannot read `%s' (%s)", name, Strerror(err)), "cannot open", "binary"
	}
	return magic(b)
}

// magic names data by its content.
func magic(b []byte) (string, string, string) {
	be := binary.BigEndian
	switch {
	case bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")):
		d := "PNG image data"
		if len(b) >= 29 && string(b[12:16]) == "IHDR" {
			depth, ct := b[24], b[25]
			colour := map[byte]string{0: "grayscale", 2: "RGB", 3: "colormap", 4: "gray+alpha", 6: "RGBA"}[ct]
			il := "non-interlaced"
			if b[28] == 1 {
				il = "interlaced"
			}
			d += fmt.Sprintf(", %d x %d, %d-bit", be.Uint32(b[16:]), be.Uint32(b[20:]), depth)
			if ct == 3 {
				d += " " + colour
			} else {
				d += "/color " + colour
			}
			d += ", " + il
		}
		return d, "image/png", "binary"
	case bytes.HasPrefix(b, []byte("GIF87a")), bytes.HasPrefix(b, []byte("GIF89a")):
		d := "GIF image data, version " + string(b[3:6])
		if len(b) >= 10 {
			d += fmt.Sprintf(", %d x %d", binary.LittleEndian.Uint16(b[6:]), binary.LittleEndian.Uint16(b[8:]))
		}
		return d, "image/gif", "binary"
	case bytes.HasPrefix(b, []byte{0xff, 0xd8, 0xff}):
		d := "JPEG image data"
		if len(b) >= 18 && string(b[6:11]) == "JFIF\x00" {
			d += fmt.Sprintf(", JFIF standard %d.%02d", b[11], b[12])
			unit := map[byte]string{0: "aspect ratio", 1: "resolution (DPI)", 2: "resolution (DPCM)"}[b[13]]
			d += fmt.Sprintf(", %s, density %dx%d, segment length %d", unit, be.Uint16(b[14:]), be.Uint16(b[16:]), be.Uint16(b[4:]))
		}
		return d, "image/jpeg", "binary"
	case bytes.HasPrefix(b, []byte{0x1f, 0x8b}):
		d := "gzip compressed data"
		if len(b) >= 10 {
			if b[3]&0x08 != 0 {
				end := bytes.IndexByte(b[10:], 0)
				if end >= 0 {
					d += ", was \"" + string(b[10:10+end]) + "\""
				}
			}
			if os := map[byte]string{3: "Unix", 0: "FAT filesystem (MS-DOS, OS/2, NT)", 11: "NTFS filesystem (NT)"}[b[9]]; os != "" {
				d += ", from " + os
			}
			if len(b) >= 18 {
				d += fmt.Sprintf(", original size modulo 2^32 %d", binary.LittleEndian.Uint32(b[len(b)-4:]))
			}
		}
		return d, "application/gzip", "binary"
	case len(b) >= 262 && string(b[257:262]) == "ustar":
		if string(b[257:265]) == "ustar  \x00" {
			return "GNU tar archive", "application/x-tar", "binary"
		}
		return "POSIX tar archive", "application/x-tar", "binary"
	case bytes.HasPrefix(b, []byte("\x7fELF")) && len(b) >= 6:
		class := map[byte]string{1: "32-bit", 2: "64-bit"}[b[4]]
		order := map[byte]string{1: "LSB", 2: "MSB"}[b[5]]
		d := "ELF " + class + " " + order
		if len(b) >= 18 {
			var t uint16
			if b[5] == 2 {
				t = be.Uint16(b[16:])
			} else {
				t = binary.LittleEndian.Uint16(b[16:])
			}
			if kind := map[uint16]string{1: "relocatable", 2: "executable", 3: "pie executable", 4: "core file"}[t]; kind != "" {
				d += " " + kind
			}
		} else {
			d += " (SYSV)"
		}
		return d, "application/x-executable", "binary"
	case bytes.HasPrefix(b, []byte("%PDF-")):
		v := b[5:]
		if i := bytes.IndexAny(v, "\r\n \t%"); i >= 0 {
			v = v[:i]
		}
		return "PDF document, version " + string(v), "application/pdf", "binary"
	case bytes.HasPrefix(b, []byte("PK\x03\x04")) && len(b) >= 30:
		return "Zip archive data, at least v" + fmt.Sprintf("%d.%d", binary.LittleEndian.Uint16(b[4:])/10, binary.LittleEndian.Uint16(b[4:])%10) + " to extract", "application/zip", "binary"
	}
	return textType(b)
}

// textType classifies text (or "data").
func textType(b []byte) (string, string, string) {
	ascii := true
	for _, c := range b {
		if c >= 0x80 {
			ascii = false
		}
		if c < 0x20 && !strings.ContainsRune("\n\r\t\f\b\x1b\a\v", rune(c)) || c == 0x7f {
			return "data", "application/octet-stream", "binary"
		}
	}
	if !ascii && !utf8.Valid(b) {
		return "data", "application/octet-stream", "binary"
	}
	kind, cs := "ASCII text", "us-ascii"
	if !ascii {
		kind, cs = "Unicode text, UTF-8 text", "utf-8"
	}
	mt := "text/plain"
	prefix := ""
	if bytes.HasPrefix(b, []byte("#!")) {
		line := string(b[2:])
		if i := strings.IndexByte(line, '\n'); i >= 0 {
			line = line[:i]
		}
		fields := strings.Fields(line)
		interp := ""
		if len(fields) > 0 {
			interp = fields[0][strings.LastIndexByte(fields[0], '/')+1:]
			if interp == "env" && len(fields) > 1 {
				interp = fields[1]
			}
		}
		switch {
		case interp == "sh":
			prefix, mt = "POSIX shell script, ", "text/x-shellscript"
		case interp == "bash":
			prefix, mt = "Bourne-Again shell script, ", "text/x-shellscript"
		case strings.HasPrefix(interp, "python"):
			prefix, mt = "Python script, ", "text/x-script.python"
		case interp != "":
			prefix = "a " + strings.Join(fields, " ") + " script, "
		}
		if prefix != "" {
			kind += " executable"
		}
	} else if t := bytes.TrimSpace(b); len(t) > 0 && (t[0] == '{' || t[0] == '[') && json.Valid(t) {
		return "JSON text data", "application/json", cs
	}
	d := prefix + kind
	var crlf, lf, cr bool
	longest, cur := 0, 0
	for i, c := range b {
		switch c {
		case '\n':
			if i > 0 && b[i-1] == '\r' {
				crlf = true
			} else {
				lf = true
			}
			cur = 0
			continue
		case '\r':
			if i+1 >= len(b) || b[i+1] != '\n' {
				cr = true
				cur = 0
			}
			continue
		}
		cur++
		longest = max(longest, cur)
	}
	switch {
	case crlf && (lf || cr):
		d += ", with CRLF, LF line terminators"
	case crlf:
		d += ", with CRLF line terminators"
	case cr && !lf:
		d += ", with CR line terminators"
	}
	if longest > 300 {
		d += fmt.Sprintf(", with very long lines (%d)", longest)
	}
	if !crlf && !lf && !cr {
		d += ", with no line terminators"
	}
	return d, mt, cs
}
