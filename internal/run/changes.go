package run

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/desk-dev/desk/internal/vfs"
)

// Changes is the set of workspace paths an execution changed, computed from
// the change journal entries attributed to it (vfs.WithActor with the
// execution id) between its start and its end. Paths are the store's (as in
// the journal), sorted. Several operations on one path collapse to their net
// effect: created then written is created; created then removed is nothing;
// removed then created again is modified; renamed is deleted at the old name
// and created at the new one (with every path below it the execution had
// touched). A rename onto an existing name reports the target as created:
// the journal does not record that a name was replaced.
type Changes struct {
	Created  []string `json:"created"`
	Modified []string `json:"modified"`
	Deleted  []string `json:"deleted"`
	// Truncated is true when the set is incomplete: more than
	// Options.MaxChanges paths changed, or the journal no longer held the
	// execution's window (vfs.Options.JournalKeep).
	Truncated bool `json:"truncated,omitempty"`
}

// pathState is what the execution did to one path, net.
type pathState uint8

const (
	psCreated  pathState = iota + 1 // did not exist before, exists now
	psModified                      // existed before, exists now
	psDeleted                       // existed before, gone now
	psGone                          // did not exist before, gone now (reported as nothing)
)

type changeSet map[string]pathState

func (cs changeSet) create(p string) {
	switch cs[p] {
	case 0, psGone:
		cs[p] = psCreated
	case psDeleted:
		cs[p] = psModified
	}
}

func (cs changeSet) remove(p string) {
	switch cs[p] {
	case psCreated:
		cs[p] = psGone
	case 0, psModified:
		cs[p] = psDeleted
	}
}

func (cs changeSet) touch(p string) {
	if cs[p] == 0 {
		cs[p] = psModified
	}
}

// under returns the tracked paths strictly below dir, sorted.
func (cs changeSet) under(dir string) []string {
	var out []string
	for p, s := range cs {
		if strings.HasPrefix(p, dir+"/") && s != psGone && s != psDeleted {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

func (cs changeSet) apply(c *vfs.Change) {
	switch c.Op {
	case vfs.OpCreate, vfs.OpMkdir, vfs.OpSymlink, vfs.OpMknod, vfs.OpLink:
		cs.create(c.Path)
	case vfs.OpRemove:
		cs.remove(c.Path)
	case vfs.OpWrite, vfs.OpTruncate, vfs.OpSetattr:
		cs.touch(c.Path)
	case vfs.OpRename:
		if c.OldPath == "" || c.OldPath == c.Path {
			cs.touch(c.Path)
			return
		}
		for _, p := range cs.under(c.OldPath) {
			cs.remove(p)
			cs.create(c.Path + p[len(c.OldPath):])
		}
		cs.remove(c.OldPath)
		cs.create(c.Path)
	case vfs.OpExchange:
		cs.touch(c.Path)
		if c.OldPath != "" {
			cs.touch(c.OldPath)
		}
	default:
		cs.touch(c.Path)
	}
}

func (cs changeSet) result(max int) *Changes {
	ch := &Changes{Created: []string{}, Modified: []string{}, Deleted: []string{}}
	paths := make([]string, 0, len(cs))
	for p := range cs {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	n := 0
	for _, p := range paths {
		var list *[]string
		switch cs[p] {
		case psCreated:
			list = &ch.Created
		case psModified:
			list = &ch.Modified
		case psDeleted:
			list = &ch.Deleted
		default:
			continue
		}
		if n == max {
			ch.Truncated = true
			break
		}
		*list = append(*list, p)
		n++
	}
	return ch
}

// changes computes the change set of actor from the journal entries in (start, end].
func (r *Runtime) changes(ctx context.Context, actor string, start, end uint64) (*Changes, error) {
	cs := changeSet{}
	truncated := false
	for since := start; since < end; {
		page, err := r.fs.Changes(ctx, since, 1000)
		if errors.Is(err, vfs.ErrJournalTruncated) {
			truncated = true
			break
		}
		if err != nil {
			return nil, fmt.Errorf("read change journal: %w", err)
		}
		if len(page) == 0 {
			break
		}
		for i := range page {
			c := &page[i]
			if c.Seq > end {
				break
			}
			if c.Actor == actor {
				cs.apply(c)
			}
		}
		since = page[len(page)-1].Seq
	}
	ch := cs.result(r.opts.MaxChanges)
	ch.Truncated = ch.Truncated || truncated
	return ch, nil
}
