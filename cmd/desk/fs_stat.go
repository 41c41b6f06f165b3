package main

import (
	"flag"
	"fmt"
	"github.com/desk-dev/desk/client/quote"
	"github.com/desk-dev/desk/internal/vfs"
	"strconv"
	"unicode/utf8"
)

var fsStat = &fsVerb{
	name:     "stat",
	synopsis: "PATH...",
	summary:  "show every attribute of files (symlinks are not followed)",
	minArgs:  1,
	maxArgs:  -1,
	setup: func(fl *flag.FlagSet) func(*fsCmd, []string) error {
		return func(c *fsCmd, args []string) error {
			return c.eachPath(args, func(fsys fileStore, i int, p string) error {
				fi, err := fsys.Lstat(c.ctx, p)
				if err != nil {
					return err
				}
				if i > 0 {
					fmt.Fprintln(c.out)
				}
				name := p
				if fi.IsSymlink() {
					target := fi.Target
					if target == "" {
						if target, err = fsys.Readlink(c.ctx, p); err != nil {
							return err
						}
					}
					name += " -> " + target
				}
				fmt.Fprintf(c.out, "  File: %s\n", name)
				fmt.Fprintf(c.out, "  Type: %s\n", typeString(fi.Mode))
				a := fi.attr
				if a == nil {
					// Over the API: what it reports.
					fmt.Fprintf(c.out, " Inode: %d\n", fi.Ino)
					fmt.Fprintf(c.out, "  Mode: %04o (%s)\n", fi.Mode&0o7777, vfs.ModeString(fi.Mode))
					fmt.Fprintf(c.out, " Links: %d\n", fi.Nlink)
					fmt.Fprintf(c.out, "  Size: %d\n", fi.Size)
					fmt.Fprintf(c.out, "Modify: %s\n", fullTime(fi.Mtime))
					return nil
				}
				fmt.Fprintf(c.out, " Inode: %-12d Generation: %d\n", a.Ino, a.Gen)
				fmt.Fprintf(c.out, "  Mode: %04o (%s)\n", a.Mode&0o7777, vfs.ModeString(a.Mode))
				fmt.Fprintf(c.out, " Links: %d\n", a.Nlink)
				fmt.Fprintf(c.out, "   Uid: %-12d Gid: %d\n", a.Uid, a.Gid)
				fmt.Fprintf(c.out, "  Size: %-12d Blocks: %d\n", a.Size, a.Blocks)
				fmt.Fprintf(c.out, "Access: %s\n", fullTime(a.Atime))
				fmt.Fprintf(c.out, "Modify: %s\n", fullTime(a.Mtime))
				fmt.Fprintf(c.out, "Change: %s\n", fullTime(a.Ctime))
				fmt.Fprintf(c.out, " Birth: %s\n", fullTime(a.Btime))
				if c.fsys == nil {
					return nil
				}
				raw, err := parsePath(p)
				if err != nil {
					return err
				}
				names, err := c.fsys.Listxattr(c.ctx, raw)
				if err != nil {
					return shownErr(err)
				}
				for _, n := range names {
					v, err := c.fsys.Getxattr(c.ctx, raw, n)
					if err != nil {
						return err
					}
					fmt.Fprintf(c.out, " Xattr: %s=%s\n", quote.Name(n), xattrValue(v))
				}
				return nil
			})
		}
	},
}

// xattrValue renders an attribute value: quoted text when it is valid UTF-8,
// hexadecimal otherwise.
func xattrValue(v []byte) string {
	if utf8.Valid(v) {
		return strconv.Quote(string(v))
	}
	return fmt.Sprintf("0x%x", v)
}
