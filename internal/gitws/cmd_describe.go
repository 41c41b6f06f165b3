package gitws

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// describeName is a tag naming a commit: prio 2 annotated, 1 lightweight.
type describeName struct {
	name string
	prio int
	date int64 // an annotated tag's date (the newer of two on one commit wins)
}

// describeMaxCandidates is git's default --candidates.
const describeMaxCandidates = 10

// describeMaxTags is git's MAX_TAGS, the most candidates (a flag bit each).
const describeMaxTags = 26

// describeMaxCommits bounds the commits one description walks.
const describeMaxCommits = 1_000_000

// cmdDescribe is git describe [--tags] [--always] [--long] [--abbrev=N]
// [--dirty[=mark]] [--exact-match] [--first-parent] [<commit-ish>...]: the
// nearest tag reachable from each commit, found by git's walk in commit
// date order among its first 10 candidates, as "<tag>-<n>-g<abbrev>".
func cmdDescribe(c *cmd, args []string) int {
	o := c.parse(args, spec{long: []string{"tags", "always", "long", "abbrev?", "dirty?", "exact-match",
		"first-parent", "all", "contains", "candidates=", "match=", "exclude=", "broken?", "debug"}})
	for _, n := range []string{"all", "contains", "match", "exclude", "broken", "debug"} {
		if o.has(n) {
			c.die("git describe --%s is not supported by the shell backend's git (the sandbox's git has it)", n)
		}
	}
	tags, always, long := o.has("tags"), o.has("always"), o.has("long")
	exact := o.has("exact-match")
	firstParent := o.has("first-parent")
	abbrev := 7
	if o.has("abbrev") {
		if v := o.val("abbrev"); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil {
				c.errorf("option `abbrev' expects a numerical value")
				c.exit(ExitUsage)
			}
			abbrev = n
			if abbrev != 0 && abbrev < 4 {
				abbrev = 4
			}
			if abbrev > 40 {
				abbrev = 40
			}
		}
	}
	candidates := describeMaxCandidates
	if o.has("candidates") {
		n, err := strconv.Atoi(o.val("candidates"))
		if err != nil {
			c.errorf("option `candidates' expects a numerical value")
			c.exit(ExitUsage)
		}
		candidates = min(max(n, 0), describeMaxTags)
	}
	if exact {
		candidates = 0
	}
	if long && abbrev == 0 {
		c.die("options '--long' and '--abbrev=0' cannot be used together")
	}
	revs := append(o.args, o.paths...)
	dirty := ""
	if o.has("dirty") {
		dirty = "-dirty"
		if o.explicit["dirty"] {
			dirty = o.val("dirty")
		}
		if len(revs) > 0 {
			c.die("option '--dirty' and commit-ishes cannot be used together")
		}
	}
	r := c.needRepo()
	if len(revs) == 0 {
		revs = []string{"HEAD"}
	}
	names := c.describeNames(r)
	for _, rev := range revs {
		h, err := c.resolveCommitish(r, rev)
		if err != nil {
			c.die("Not a valid object name %s", rev)
		}
		suffix := ""
		if dirty != "" && c.describeDirty(r) {
			suffix = dirty
		}
		d := &describer{c: c, r: r, names: names, tags: tags, always: always, long: long, abbrev: abbrev,
			candidates: candidates, firstParent: firstParent}
		fmt.Fprintln(c.out, d.describe(h)+suffix)
	}
	return 0
}

// describeNames maps each tagged commit to its tag (git's replace_name:
// an annotated tag over a lightweight one, the newer of two annotated).
func (c *cmd) describeNames(r *Repo) map[plumbing.Hash]describeName {
	refs, err := r.allRefs()
	if err != nil {
		c.dieErr(err)
	}
	sort.Slice(refs, func(i, j int) bool { return refs[i].Name() < refs[j].Name() })
	names := map[plumbing.Hash]describeName{}
	for _, ref := range refs {
		full := ref.Name().String()
		if !strings.HasPrefix(full, "refs/tags/") || ref.Type() != plumbing.HashReference {
			continue
		}
		n := describeName{name: strings.TrimPrefix(full, "refs/tags/"), prio: 1}
		target := ref.Hash()
		if t, err := object.GetTag(r.st, target); err == nil {
			n.prio, n.date = 2, t.Tagger.When.Unix()
			peeled, err := r.peel(target, plumbing.CommitObject)
			if err != nil {
				continue
			}
			target = peeled
		} else if _, err := object.GetCommit(r.st, target); err != nil {
			continue
		}
		if e, ok := names[target]; ok && !(e.prio < n.prio || e.prio == 2 && n.prio == 2 && e.date < n.date) {
			continue
		}
		names[target] = n
	}
	return names
}

// describeDirty reports whether the work tree or the index differs from
// HEAD in a tracked file (git diff-index HEAD, untracked files aside).
func (c *cmd) describeDirty(r *Repo) bool {
	if r.Work == "" {
		c.die("this operation must be run in a work tree")
	}
	st, err := r.status(false)
	if err != nil {
		c.dieErr(err)
	}
	for _, ch := range st.changes {
		if ch.X != '?' && ch.X != '!' {
			return true
		}
	}
	return false
}

// describer is one git describe of a commit.
type describer struct {
	c                  *cmd
	r                  *Repo
	names              map[plumbing.Hash]describeName
	tags, always, long bool
	firstParent        bool
	abbrev, candidates int
	commits            map[plumbing.Hash]*describeCommit
	walked             int
}

// describeCommit is a commit in the walk: its date, parents and flags
// (bit 0 seen, bit k+1: reachable from candidate k).
type describeCommit struct {
	hash    plumbing.Hash
	date    int64
	parents []plumbing.Hash
	flags   uint32
}

func (d *describer) commit(h plumbing.Hash) *describeCommit {
	if dc, ok := d.commits[h]; ok {
		return dc
	}
	d.walked++
	if d.walked > describeMaxCommits {
		d.c.die("git describe: over %d commits walked (the shell backend's limit)", describeMaxCommits)
	}
	cm, err := object.GetCommit(d.r.st, h)
	if err != nil {
		d.c.dieErr(err)
	}
	dc := &describeCommit{hash: h, date: cm.Committer.When.Unix(), parents: cm.ParentHashes}
	d.commits[h] = dc
	return dc
}

// insertByDate is git's commit_list_insert_by_date: after every commit
// not older.
func insertByDate(list []*describeCommit, c *describeCommit) []*describeCommit {
	i := 0
	for i < len(list) && list[i].date >= c.date {
		i++
	}
	list = append(list, nil)
	copy(list[i+1:], list[i:])
	list[i] = c
	return list
}

type possibleTag struct {
	name   describeName
	depth  int
	within uint32
	order  int
}

const describeSeen = 1

func (d *describer) abbrevOf(h plumbing.Hash) string {
	n := d.abbrev
	if n == 0 {
		n = 7
	}
	return h.String()[:n]
}

func (d *describer) suffix(depth int, h plumbing.Hash) string {
	if d.abbrev == 0 {
		return ""
	}
	return fmt.Sprintf("-%d-g%s", depth, h.String()[:d.abbrev])
}

// describe is git's describe() for one commit.
func (d *describer) describe(h plumbing.Hash) string {
	c := d.c
	d.commits = map[plumbing.Hash]*describeCommit{}
	if n, ok := d.names[h]; ok && (d.tags || n.prio == 2) {
		if d.long {
			return n.name + d.suffix(0, h)
		}
		return n.name
	}
	if len(d.names) == 0 && !d.always {
		c.die("No names found, cannot describe anything.")
	}
	if d.candidates == 0 {
		c.die("no tag exactly matches '%s'", h)
	}
	var matches []*possibleTag
	annotated, unannotated := 0, 0
	var gaveUp *describeCommit
	start := d.commit(h)
	start.flags = describeSeen
	list := []*describeCommit{start}
	seen := 0
	for len(list) > 0 {
		cm := list[0]
		list = list[1:]
		seen++
		if n, ok := d.names[cm.hash]; ok {
			switch {
			case !d.tags && n.prio < 2:
				unannotated++
			case len(matches) < d.candidates:
				t := &possibleTag{name: n, depth: seen - 1, within: 1 << (len(matches) + 1), order: len(matches) + 1}
				matches = append(matches, t)
				cm.flags |= t.within
				if n.prio == 2 {
					annotated++
				}
			default:
				gaveUp = cm
			}
			if gaveUp != nil {
				break
			}
		}
		for _, t := range matches {
			if cm.flags&t.within == 0 {
				t.depth++
			}
		}
		if annotated > 0 && len(list) == 0 {
			best, within := int(^uint(0)>>1), uint32(0)
			for _, t := range matches {
				if t.depth < best {
					best, within = t.depth, t.within
				} else if t.depth == best {
					within |= t.within
				}
			}
			if cm.flags&within == within {
				break
			}
		}
		for _, ph := range cm.parents {
			p := d.commit(ph)
			if p.flags&describeSeen == 0 {
				list = insertByDate(list, p)
			}
			p.flags |= cm.flags
			if d.firstParent {
				break
			}
		}
	}
	if len(matches) == 0 {
		if d.always {
			return d.abbrevOf(h)
		}
		if unannotated > 0 {
			c.die("No annotated tags can describe '%s'.\nHowever, there were unannotated tags: try --tags.", h)
		}
		c.die("No tags can describe '%s'.\nTry --always, or create some tags.", h)
	}
	sort.SliceStable(matches, func(i, j int) bool {
		if matches[i].depth != matches[j].depth {
			return matches[i].depth < matches[j].depth
		}
		return matches[i].order < matches[j].order
	})
	if gaveUp != nil {
		list = insertByDate(list, gaveUp)
	}
	d.finishDepth(list, matches[0])
	return matches[0].name.name + d.suffix(matches[0].depth, h)
}

// finishDepth is git's finish_depth_computation: the walk goes on until
// every commit left is reachable from the best candidate.
func (d *describer) finishDepth(list []*describeCommit, best *possibleTag) {
	for len(list) > 0 {
		cm := list[0]
		list = list[1:]
		if cm.flags&best.within != 0 {
			all := true
			for _, a := range list {
				if a.flags&best.within == 0 {
					all = false
					break
				}
			}
			if all {
				break
			}
		} else {
			best.depth++
		}
		for _, ph := range cm.parents {
			p := d.commit(ph)
			if p.flags&describeSeen == 0 {
				list = insertByDate(list, p)
			}
			p.flags |= cm.flags
		}
	}
}
