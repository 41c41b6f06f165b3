package main

import (
	"flag"
	"fmt"
	"path"

	"github.com/desk-dev/desk/internal/vfs"
	"github.com/desk-dev/desk/internal/wspath"
)

var fsTree = &fsVerb{
	name:     "tree",
	synopsis: "[PATH]",
	summary:  "draw the directory tree under PATH (default /workspace); symlinks are shown, not followed",
	minArgs:  0,
	maxArgs:  1,
	setup: func(fl *flag.FlagSet) func(*fsCmd, []string) error {
		return func(c *fsCmd, args []string) error {
			root := wspath.Dir
			if len(args) == 1 {
				root = wsPath(args[0])
			}
			fsys, err := c.files()
			if err != nil {
				return err
			}
			fi, err := fsys.Stat(c.ctx, root)
			if err != nil {
				return err
			}
			fmt.Fprintln(c.out, root)
			var n treeCounts
			if fi.IsDir() {
				if err := c.tree(fsys, root, "", &n); err != nil {
					return err
				}
			}
			fmt.Fprintf(c.out, "\n%d directories, %d files, %d symlinks\n", n.dirs, n.files, n.symlinks)
			return nil
		}
	},
}

type treeCounts struct{ dirs, files, symlinks int }

func (c *fsCmd) tree(fsys fileStore, dir, prefix string, n *treeCounts) error {
	if err := c.ctx.Err(); err != nil {
		return err
	}
	var ents []dirEntry
	for after := ""; ; {
		page, next, err := fsys.ReadDirPage(c.ctx, dir, after, lsPage)
		if err != nil {
			return err
		}
		ents = append(ents, page...)
		if next == "" {
			break
		}
		after = next
	}
	for i, e := range ents {
		branch, indent := "├── ", "│   "
		if i == len(ents)-1 {
			branch, indent = "└── ", "    "
		}
		full := path.Join(dir, e.Name)
		line := prefix + branch + e.Name
		switch e.Mode & vfs.S_IFMT {
		case vfs.S_IFDIR:
			n.dirs++
			fmt.Fprintln(c.out, line)
			if err := c.tree(fsys, full, prefix+indent, n); err != nil {
				return err
			}
			continue
		case vfs.S_IFLNK:
			n.symlinks++
			target, err := fsys.Readlink(c.ctx, full)
			if err != nil {
				return err
			}
			line += " -> " + target
		default:
			n.files++
		}
		fmt.Fprintln(c.out, line)
	}
	return nil
}
