package cmds

import (
	"fmt"
	"os"
	"strings"
	"syscall"
)

func init() { Register("truncate", Truncate) }

const truncateHelp = `Usage: truncate OPTION... FILE...
Shrink or extend the size of each FILE to the specified size

A FILE argument that does not exist is created.

If a FILE is larger than the specified size, the extra data is lost.
If a FILE is shorter, it is extended and the sparse extended part (hole)
reads as zero bytes.

Mandatory arguments to long options are mandatory for short options too.
  -c, --no-create        do not create any files
  -o, --io-blocks        treat SIZE as number of IO blocks instead of bytes
  -r, --reference=RFILE  base size on RFILE
  -s, --size=SIZE        set or adjust the file size by SIZE bytes
      --help        display this help and exit
      --version     output version information and exit

The SIZE argument is an integer and optional unit (example: 10K is 10*1024).
Units are K,M,G,T,P,E,Z,Y (powers of 1024) or KB,MB,... (powers of 1000).
Binary prefixes can be used, too: KiB=K, MiB=M, and so on.

SIZE may also be prefixed by one of the following modifying characters:
'+' extend by, '-' reduce by, '<' at most, '>' at least,
'/' round down to multiple of, '%' round up to multiple of.
`

// truncateBlock is the I/O block of -o: the store's, as stat %o reports it.
const truncateBlock = 4096

// Truncate is GNU truncate: -s SIZE (with K, KB, KiB... suffixes and the
// modifiers + - < > / %), -r RFILE, -o (SIZE in 4096-byte I/O blocks), -c
// (do not create). A missing FILE is created 0644; the store bounds the size
// (past its largest file: "File too large"). Extending makes a hole, which
// reads as zeros.
func Truncate(env *Env, args []string) int {
	opts, ops, ok := fuParseOpts(env, args, "c|no-create", "o|io-blocks", "r|reference=", "s|size=", "|help")
	if !ok {
		return 1
	}
	const (
		relNone = iota
		relAdd
		relMax // '<': at most
		relMin // '>': at least
		relDown
		relUp
	)
	noCreate, blocks, gotSize := false, false, false
	ref := ""
	hasRef := false
	rel := relNone
	var size int64
	for _, o := range opts {
		switch o.name {
		case "help":
			return fuHelp(env, "truncate", truncateHelp)
		case "no-create":
			noCreate = true
		case "io-blocks":
			blocks = true
		case "reference":
			ref, hasRef = o.val, true
		case "size":
			s := strings.TrimLeft(o.val, " \t\n\v\f\r")
			rel = relNone
			if s != "" {
				if m := strings.IndexByte("<>/%", s[0]); m >= 0 {
					rel = []int{relMax, relMin, relDown, relUp}[m]
					s = strings.TrimLeft(s[1:], " \t\n\v\f\r")
				}
			}
			if s != "" && (s[0] == '+' || s[0] == '-') {
				if rel != relNone {
					env.Errorf("truncate", "multiple relative modifiers specified")
					fuTryHelp(env, "truncate")
					return 1
				}
				rel = relAdd
			}
			v, verdict := gnuSizeArg(s, "EgGkKmMPtTYZ0")
			switch verdict {
			case sizeArgInvalid:
				env.Errorf("truncate", "Invalid number: %s", quote(env, s))
				return 1
			case sizeArgOverflow:
				env.Errorf("truncate", "Invalid number: %s: %s", quote(env, s), Strerror(syscall.EOVERFLOW))
				return 1
			}
			if (rel == relDown || rel == relUp) && v == 0 {
				env.Errorf("truncate", "division by zero")
				return 1
			}
			size, gotSize = v, true
		}
	}
	switch {
	case !hasRef && !gotSize:
		env.Errorf("truncate", "you must specify either %s or %s", quote(env, "--size"), quote(env, "--reference"))
		fuTryHelp(env, "truncate")
		return 1
	case hasRef && gotSize && rel == relNone:
		env.Errorf("truncate", "you must specify a relative %s with %s", quote(env, "--size"), quote(env, "--reference"))
		fuTryHelp(env, "truncate")
		return 1
	case blocks && !gotSize:
		env.Errorf("truncate", "%s was specified but %s was not", quote(env, "--io-blocks"), quote(env, "--size"))
		fuTryHelp(env, "truncate")
		return 1
	case len(ops) == 0:
		env.Errorf("truncate", "missing file operand")
		fuTryHelp(env, "truncate")
		return 1
	}
	rsize := int64(-1)
	if hasRef {
		fi, err := env.FS.Stat(env.Ctx, env.Abs(ref))
		if err != nil {
			env.Errorf("truncate", "cannot stat %s: %s", quoteaf(env, ref), Strerror(err))
			return 1
		}
		if !gotSize {
			size = fi.Size()
		} else {
			rsize = fi.Size()
		}
	}
	flag := os.O_WRONLY
	if !noCreate {
		flag |= os.O_CREATE
	}
	status := 0
	for _, name := range ops {
		if env.Canceled() {
			return 1
		}
		h, err := env.FS.OpenFile(env.Ctx, fuAbs(env, name), flag, 0o666&^fuUmask)
		if err != nil {
			if !noCreate || !fuIsNotExist(err) {
				env.Errorf("truncate", "cannot open %s for writing: %s", quoteaf(env, name), Strerror(err))
				status = 1
			}
			continue
		}
		nsize, msg := size, ""
		if blocks {
			if nsize > 0 && nsize > (1<<63-1)/truncateBlock || nsize < 0 && nsize < -(1<<63)/truncateBlock {
				msg = fmt.Sprintf("overflow in %d * %d byte blocks for file %s", size, truncateBlock, quoteaf(env, name))
			} else {
				nsize *= truncateBlock
			}
		}
		if msg == "" && rel != relNone {
			fsize := rsize
			if fsize < 0 {
				fi, err := h.Stat()
				if err != nil {
					msg = fmt.Sprintf("cannot fstat %s: %s", quoteaf(env, name), Strerror(err))
				} else {
					fsize = fi.Size()
				}
			}
			if msg == "" {
				switch rel {
				case relMin:
					nsize = max(fsize, nsize)
				case relMax:
					nsize = min(fsize, nsize)
				case relDown:
					nsize = fsize - fsize%nsize
				default:
					if rel == relUp {
						if r := fsize % nsize; r == 0 {
							nsize = 0
						} else {
							nsize -= r
						}
					}
					if nsize > 0 && fsize > 1<<63-1-nsize {
						msg = fmt.Sprintf("overflow extending size of file %s", quoteaf(env, name))
					}
					nsize += fsize
				}
			}
		}
		if msg == "" {
			nsize = max(nsize, 0)
			if err := h.Truncate(nsize); err != nil {
				msg = fmt.Sprintf("failed to truncate %s at %d bytes: %s", quoteaf(env, name), nsize, Strerror(err))
			}
		}
		if err := h.Close(); err != nil && msg == "" {
			msg = fmt.Sprintf("failed to close %s: %s", quoteaf(env, name), Strerror(err))
		}
		if msg != "" {
			env.Errorf("truncate", "%s", msg)
			status = 1
		}
	}
	return status
}
