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
	summary:  "list directories (default /workspace) in name order",
	minArgs:  0,
	maxArgs:  -1,
	setup: func(fl *flag.FlagSet) func(*fsCmd, []string) error {
		long := fl.Bool("l", false, "long format: mode, links, owner, size, mtime, symlink target (over the API: no links or owner, shown as -)")
		return func(c *fsCmd, args []string) error {
			if len(args) == 0 {
				args = []string{""}
			}
			for i, arg := range args {
				if len(args) > 1 {
					if i > 0 {
						fmt.Fprintln(c.out)
					}
					fmt.Fprintf(c.out, "%s:\n", arg)
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
	fsys, err := c.files()
	if err != nil {
		return err
	}
	fi, err := fsys.Stat(c.ctx, p)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return c.lsEntry(fsys, p, path.Base(p), nil, long)
	}
	after := ""
	for {
		ents, next, err := fsys.ReadDirPage(c.ctx, p, after, lsPage)
		if err != nil {
			return err
		}
		for _, e := range ents {
			if err := c.lsEntry(fsys, path.Join(p, e.Name), e.Name, e.info, long); err != nil {
				return err
			}
		}
		if next == "" {
			return nil
		}
		after = next
	}
}

// lsEntry prints one entry; info is what the listing said about it, if
// anything.
func (c *fsCmd) lsEntry(fsys fileStore, full, name string, info *fileInfo, long bool) error {
	if !long {
		_, err := fmt.Fprintln(c.out, name)
		return err
	}
	var fi fileInfo
	if info != nil {
		fi = *info
	} else {
		var err error
		if fi, err = fsys.Lstat(c.ctx, full); err != nil {
			return err
		}
	}
	var links string
	switch {
	case fi.attr != nil:
		links = fmt.Sprintf("%3d %5d %5d", fi.attr.Nlink, fi.attr.Uid, fi.attr.Gid)
	case fi.Nlink > 0:
		links = fmt.Sprintf("%3d %5s %5s", fi.Nlink, "-", "-")
	default:
		links = fmt.Sprintf("%3s %5s %5s", "-", "-", "-")
	}
	line := fmt.Sprintf("%s %s %10d %s %s", vfs.ModeString(fi.Mode), links, fi.Size,
		fi.Mtime.Local().Format("2006-01-02 15:04"), name)
	if fi.IsSymlink() {
		target := fi.Target
		if target == "" {
			var err error
			if target, err = fsys.Readlink(c.ctx, full); err != nil {
				return err
			}
		}
		line += " -> " + target
	}
	_, err := fmt.Fprintln(c.out, line)
	return err
}
