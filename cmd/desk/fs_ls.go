package main

import (
	"flag"
	"fmt"
	"path"

	"github.com/desk-dev/desk/internal/vfs"
)

var fsLs = &fsVerb{
	name:     "ls",
	synopsis: "[-l] [PATH...]",
	summary:  "list directories (default /) in name order",
	minArgs:  0,
	maxArgs:  -1,
	setup: func(fl *flag.FlagSet) func(*fsCmd, []string) error {
		long := fl.Bool("l", false, "long format: mode, links, owner, size, mtime, symlink target")
		return func(c *fsCmd, args []string) error {
			if len(args) == 0 {
				args = []string{"/"}
			}
			for i, arg := range args {
				if len(args) > 1 {
					if i > 0 {
						fmt.Fprintln(c.out)
					}
					fmt.Fprintf(c.out, "%s:\n", displayName(arg))
				}
				if err := c.ls(wsPath(arg), *long); err != nil {
					return err
				}
			}
			return nil
		}
	},
}

// lsPage is how many entries ls asks the store for at a time.
const lsPage = 1000

func (c *fsCmd) ls(p string, long bool) error {
	fsys, err := c.store()
	if err != nil {
		return err
	}
	fi, err := fsys.Stat(c.ctx, p)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return c.lsEntry(p, path.Base(p), long)
	}
	after := ""
	for {
		ents, err := fsys.ReadDirPage(c.ctx, p, after, lsPage)
		if err != nil {
			return err
		}
		for _, e := range ents {
			if err := c.lsEntry(path.Join(p, e.Name), e.Name, long); err != nil {
				return err
			}
		}
		if len(ents) < lsPage {
			return nil
		}
		after = ents[len(ents)-1].Name
	}
}

func (c *fsCmd) lsEntry(full, name string, long bool) error {
	if !long {
		_, err := fmt.Fprintln(c.out, displayName(name))
		return err
	}
	fi, err := c.fsys.Lstat(c.ctx, full)
	if err != nil {
		return err
	}
	a := fi.Attr()
	line := fmt.Sprintf("%s %3d %5d %5d %10d %s %s", modeString(a.Mode), a.Nlink, a.Uid, a.Gid, a.Size,
		a.Mtime.Local().Format("2006-01-02 15:04"), displayName(name))
	if a.Mode&vfs.S_IFMT == vfs.S_IFLNK {
		target, err := c.fsys.Readlink(c.ctx, full)
		if err != nil {
			return err
		}
		line += " -> " + displayName(target)
	}
	_, err = fmt.Fprintln(c.out, line)
	return err
}
