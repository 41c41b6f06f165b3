package cmds

import (
	"bufio"
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"strings"
)

func init() {
	Register("md5sum", hashSum("md5sum", md5.New))
	Register("sha1sum", hashSum("sha1sum", sha1.New))
	Register("sha224sum", hashSum("sha224sum", sha256.New224))
	Register("sha256sum", hashSum("sha256sum", sha256.New))
	Register("sha384sum", hashSum("sha384sum", sha512.New384))
	Register("sha512sum", hashSum("sha512sum", sha512.New))
}

// hashSum makes md5sum, sha1sum, sha256sum... as GNU coreutils: print
// "hash  name" for each file ("-" or none: stdin; -b prints "hash *name"),
// or with -c read such lines and check them ("name: OK" / "name: FAILED",
// the GNU warnings, --status, --quiet, --strict, --ignore-missing). -t and
// -b are accepted; --tag writes (and -c reads) the BSD form "MD5 (name) =
// hash". Files are streamed through the hash.
func hashSum(name string, newHash func() hash.Hash) Func {
	return func(env *Env, args []string) int {
		opts, files, ok := parseOpts(env, name, args[1:], optSpec{shorts: "bctwz",
			longs: []string{"binary", "check", "text", "warn", "zero", "status", "quiet", "strict", "ignore-missing", "tag"}})
		if !ok {
			return 1
		}
		var check, binary, status, quiet, strict, warn, ignoreMissing, zero, tag bool
		for _, o := range opts {
			switch o.name {
			case "c", "check":
				check = true
			case "b", "binary":
				binary = true
			case "t", "text":
				binary = false
			case "status":
				status = true
			case "quiet":
				quiet = true
			case "strict":
				strict = true
			case "w", "warn":
				warn = true
			case "ignore-missing":
				ignoreMissing = true
			case "z", "zero":
				zero = true
			case "tag":
				tag = true
			}
		}
		if tag && check {
			tryHelp(env, name, "the --tag option is meaningless when verifying checksums")
			return 1
		}
		algo := strings.ToUpper(strings.TrimSuffix(name, "sum"))
		if len(files) == 0 {
			files = []string{"-"}
		}
		sum := func(f string) (string, error) {
			r, err := openArg(env, f)
			if err != nil {
				return "", err
			}
			defer r.Close()
			h := newHash()
			if _, err := io.Copy(h, r); err != nil {
				return "", err
			}
			return hex.EncodeToString(h.Sum(nil)), nil
		}
		w := bufio.NewWriter(env.Stdout)
		defer w.Flush()
		rc := 0
		if !check {
			end := "\n"
			if zero {
				end = "\x00"
			}
			for _, f := range files {
				s, err := sum(f)
				if err != nil {
					w.Flush()
					if !isCanceled(env, err) {
						env.PathError(name, quotef(env, f), err)
					}
					rc = 1
					continue
				}
				sep := "  "
				if binary {
					sep = " *"
				}
				disp := f
				if !zero && strings.ContainsAny(f, "\\\n") {
					disp = strings.ReplaceAll(strings.ReplaceAll(f, "\\", "\\\\"), "\n", "\\n")
					s = "\\" + s
				}
				if tag {
					if strings.HasPrefix(s, "\\") {
						fmt.Fprint(w, "\\"+algo+" ("+disp+") = "+s[1:]+end)
					} else {
						fmt.Fprint(w, algo+" ("+disp+") = "+s+end)
					}
					continue
				}
				fmt.Fprint(w, s+sep+disp+end)
			}
			return rc
		}
		hexLen := newHash().Size() * 2
		for _, list := range files {
			r, err := openArg(env, list)
			if err != nil {
				env.PathError(name, quotef(env, list), err)
				rc = 1
				continue
			}
			lr := newLineReader(env, r, '\n')
			var bad, failed, unread, okCount, lineNo, missing int
			for {
				line, err := lr.next()
				if err == io.EOF {
					break
				}
				if err != nil {
					if !isCanceled(env, err) {
						w.Flush()
						env.PathError(name, quotef(env, list), err)
					}
					rc = 1
					break
				}
				lineNo++
				l := strings.TrimRight(string(line), "\n")
				l = strings.TrimSuffix(l, "\r")
				if strings.HasPrefix(l, "#") {
					continue
				}
				escaped := strings.HasPrefix(l, "\\")
				if escaped {
					l = l[1:]
				}
				// The BSD form that --tag writes: "MD5 (name) = hash".
				if strings.HasPrefix(l, algo+" (") && len(l) >= hexLen+4 && strings.HasSuffix(l[:len(l)-hexLen], ") = ") && isHex(l[len(l)-hexLen:]) {
					l = l[len(l)-hexLen:] + "  " + l[len(algo)+2:len(l)-hexLen-4]
				}
				if len(l) < hexLen+2 || !isHex(l[:hexLen]) || l[hexLen] != ' ' || (l[hexLen+1] != ' ' && l[hexLen+1] != '*') {
					bad++
					if warn {
						w.Flush()
						env.Errorf(name, "%s: %d: improperly formatted %s checksum line", quotef(env, list), lineNo, strings.ToUpper(strings.TrimSuffix(name, "sum")))
					}
					continue
				}
				want, file := strings.ToLower(l[:hexLen]), l[hexLen+2:]
				if escaped {
					file = strings.NewReplacer("\\\\", "\\", "\\n", "\n").Replace(file)
				}
				got, err := sum(file)
				if err != nil {
					if ignoreMissing && strings.Contains(Strerror(err), "No such file") {
						missing++
						continue
					}
					unread++
					w.Flush()
					env.PathError(name, quotef(env, file), err)
					if !status {
						fmt.Fprintf(w, "%s: FAILED open or read\n", file)
					}
					continue
				}
				if got != want {
					failed++
					if !status {
						fmt.Fprintf(w, "%s: FAILED\n", file)
					}
					continue
				}
				okCount++
				if !status && !quiet {
					fmt.Fprintf(w, "%s: OK\n", file)
				}
			}
			r.Close()
			w.Flush()
			plural := func(n int, one, many string) string {
				if n == 1 {
					return one
				}
				return many
			}
			if okCount+failed+unread == 0 && missing > 0 {
				env.Errorf(name, "%s: no file was verified", quotef(env, list))
				rc = 1
				continue
			}
			if okCount+failed+unread == 0 {
				env.Errorf(name, "%s: no properly formatted checksum lines found", quotef(env, list))
				rc = 1
				continue
			}
			if !status {
				if bad > 0 {
					env.Errorf(name, "WARNING: %d %s improperly formatted", bad, plural(bad, "line is", "lines are"))
				}
				if unread > 0 {
					env.Errorf(name, "WARNING: %d listed %s could not be read", unread, plural(unread, "file", "files"))
				}
				if failed > 0 {
					env.Errorf(name, "WARNING: %d computed %s did NOT match", failed, plural(failed, "checksum", "checksums"))
				}
			}
			if failed > 0 || unread > 0 || strict && bad > 0 {
				rc = 1
			}
		}
		return rc
	}
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}
