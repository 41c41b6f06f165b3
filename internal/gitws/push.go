package gitws

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/desk-dev/desk/internal/vfs"
)

// ErrWorkTreeChanged is what UpdateWorkTree returns when local changes in
// the work tree or the index would be overwritten.
var ErrWorkTreeChanged = errors.New("local changes would be overwritten")

// FindRepo returns the git directory and the work tree ("" for a bare
// repository) of the repository at dir: dir/.git, or dir itself when it is
// a git directory. Unlike git it does not look in the parents.
func FindRepo(ctx context.Context, f *vfs.FS, dir string) (gitDir, work string, err error) {
	dir = vfs.Clean(dir)
	cand := strings.TrimSuffix(dir, "/") + "/.git"
	switch {
	case isGitDir(ctx, f, cand):
		return cand, dir, nil
	case isGitDir(ctx, f, dir):
		return dir, "", nil
	}
	return "", "", fmt.Errorf("%s: %w", dir, errNotRepo)
}

// CurrentBranch returns the ref HEAD names in the git directory gitDir
// ("refs/heads/main"), or "" when HEAD is detached.
func CurrentBranch(ctx context.Context, f *vfs.FS, gitDir string) (string, error) {
	b, err := f.ReadFile(ctx, gitDir+"/HEAD")
	if err != nil {
		return "", fmt.Errorf("read HEAD: %w", err)
	}
	ref, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "ref: ")
	if !ok {
		return "", nil
	}
	return ref, nil
}

// UpdateWorkTree moves the index and the work tree of a repository from
// commit from to commit to (hex ids; from may be all zeros for an unborn
// branch), as git's read-tree -m -u does for a push to the checked-out
// branch (receive.denyCurrentBranch=updateInstead, but keeping local
// changes to paths the two commits agree on): a path whose local change,
// staged or not, or an untracked file the move would overwrite stops it
// before anything is written, with ErrWorkTreeChanged naming the paths.
// HEAD and the refs are not touched: the caller moves the branch.
func UpdateWorkTree(ctx context.Context, f *vfs.FS, gitDir, work, from, to string) error {
	env := &Env{Ctx: ctx, FS: f, Dir: work}
	r, err := openRepo(env, gitDir, work)
	if err != nil {
		return err
	}
	ft, err := r.treeOf(plumbing.NewHash(from))
	if err != nil {
		return fmt.Errorf("read commit %s: %w", from, err)
	}
	tt, err := r.treeOf(plumbing.NewHash(to))
	if err != nil {
		return fmt.Errorf("read commit %s: %w", to, err)
	}
	dirty, untracked, err := r.switchTree(ft, tt, false)
	if err != nil {
		return fmt.Errorf("update work tree: %w", err)
	}
	if len(dirty)+len(untracked) > 0 {
		paths := append(dirty, untracked...)
		more := ""
		if len(paths) > 5 {
			paths, more = paths[:5], fmt.Sprintf(" and %d more", len(paths)-5)
		}
		return fmt.Errorf("%w in the workspace's work tree: %s%s (commit them in the workspace, or push to another branch)", ErrWorkTreeChanged, strings.Join(paths, ", "), more)
	}
	return nil
}
