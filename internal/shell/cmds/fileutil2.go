package cmds

// More shared helpers of the file commands (find, stat, tree, du, ...):
// shell patterns matched as fnmatch(3) without flags, and reading a
// directory with cancellation.

import (
	"github.com/desk-dev/desk/internal/glob"
	"github.com/desk-dev/desk/internal/vfs"
)

// fnCache compiles the shell patterns of one command run once each (see
// glob.CompileShell: fnmatch(3) with no flags, as find -name, grep
// --include, tree -I, du and tar --exclude and rg -g match). A malformed
// pattern matches nothing, as with fnmatch(3). It holds the patterns the
// command was given, so it is bounded by its arguments.
type fnCache map[fnKey]*glob.Shell

type fnKey struct {
	pat  string
	fold bool
}

// match reports whether s matches pat; fold makes it case-insensitive
// (FNM_CASEFOLD).
func (c fnCache) match(pat, s string, fold bool) bool {
	k := fnKey{pat, fold}
	p, ok := c[k]
	if !ok {
		p, _ = glob.CompileShell(pat, fold)
		c[k] = p
	}
	return p.Match(s)
}

// fuReadDir lists a directory (name order), stopping when the command is
// cancelled.
func fuReadDir(env *Env, p string) ([]vfs.DirEntry, error) {
	var all []vfs.DirEntry
	after := ""
	for {
		if err := env.Ctx.Err(); err != nil {
			return nil, err
		}
		page, err := env.FS.ReadDirPage(env.Ctx, p, after, 1024)
		if err != nil {
			return nil, err
		}
		all = append(all, page...)
		if len(page) < 1024 {
			return all, nil
		}
		after = page[len(page)-1].Name
	}
}

// fuReadDirAttrs is fuReadDir with every entry's attributes (as Lstat
// gives them), read with each page in one statement (vfs.ReadDirFiles)
// instead of a stat per entry; no content (maxSize -1: not even an empty
// file counts as read, so its access time stays).
func fuReadDirAttrs(env *Env, p string) ([]vfs.DirFile, error) {
	var all []vfs.DirFile
	after := ""
	for {
		if err := env.Ctx.Err(); err != nil {
			return nil, err
		}
		page, err := env.FS.ReadDirFiles(env.Ctx, p, after, 1024, -1)
		if err != nil {
			return nil, err
		}
		if all == nil {
			all = page
		} else {
			all = append(all, page...)
		}
		if len(page) < 1024 {
			return all, nil
		}
		after = page[len(page)-1].Name
	}
}

// fuBlocks is a file's 512-byte blocks as ext4 reports them: the store
// gives directories no blocks, ext4 gives them their size (4096 a page).
func fuBlocks(a vfs.Attr) int64 {
	if a.IsDir() && a.Blocks == 0 {
		return (a.Size + 511) / 512
	}
	return a.Blocks
}
