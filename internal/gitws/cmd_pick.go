package gitws

import (
	"fmt"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

func cmdCherryPick(c *cmd, args []string) int { return c.pick(args, false) }

func cmdRevert(c *cmd, args []string) int { return c.pick(args, true) }

// pickState names the files a cherry-pick or revert in progress leaves.
var pickState = []string{"CHERRY_PICK_HEAD", "REVERT_HEAD"}

// pick is git cherry-pick and git revert of one commit: its change (or
// the reverse) merged into HEAD with merge's per-file merge, as git's
// sequencer does with ort, then committed; a conflict leaves git's markers,
// CHERRY_PICK_HEAD or REVERT_HEAD and MERGE_MSG for commit (or --continue).
func (c *cmd) pick(args []string, revert bool) int {
	verb := "cherry-pick"
	if revert {
		verb = "revert"
	}
	o := c.parse(args, spec{
		long:  []string{"no-commit", "x", "abort", "continue", "quit", "skip", "edit", "no-edit", "mainline=", "signoff", "ff", "allow-empty", "keep-redundant-commits", "strategy=", "strategy-option="},
		short: map[byte]string{'n': "no-commit", 'e': "edit", 'm': "mainline", 's': "signoff", 'x': "x", 'X': "strategy-option"},
	})
	r := c.needWork()
	inProgress := ""
	for _, f := range pickState {
		if _, err := c.env.FS.Stat(c.env.Ctx, r.GitDir+"/"+f); err == nil {
			inProgress = f
		}
	}
	switch {
	case o.has("abort"), o.has("continue"), o.has("quit"):
		if inProgress == "" {
			c.errorf("no cherry-pick or revert in progress")
			c.die("%s failed", verb)
		}
		if o.has("continue") {
			// the sequencer's commit strips the "# Conflicts" comment
			return cmdCommit(c, []string{"--no-edit", "--cleanup=strip"})
		}
		if o.has("abort") {
			if st := cmdReset(c, []string{"--hard", "-q"}); st != 0 {
				return st
			}
		}
		c.clearPickState(r)
		return 0
	case o.has("skip"), o.has("mainline"), o.has("ff"), o.has("strategy"), o.has("strategy-option"), o.has("signoff"), o.has("edit"):
		c.die("git %s: this option is not implemented here (the real git in the sandbox has it)", verb)
	}
	if len(o.args) == 0 {
		fmt.Fprintf(c.err, "usage: git %s [--edit] [-n] [-m <parent-number>] [-s] [-x] [--ff]\n", verb)
		return ExitUsage
	}
	if len(o.args) > 1 {
		c.die("git %s of more than one commit is not implemented here (the real git in the sandbox has it)", verb)
	}
	if inProgress != "" {
		c.errorf("%s is already in progress", map[string]string{"CHERRY_PICK_HEAD": "cherry-pick", "REVERT_HEAD": "revert"}[inProgress])
		fmt.Fprintf(c.err, "hint: try \"git %s (--continue | --abort | --quit)\"\n", verb)
		c.die("%s failed", verb)
	}
	h, err := c.resolveCommitish(r, o.args[0])
	if err != nil {
		c.die("bad revision '%s'", o.args[0])
	}
	cm, err := object.GetCommit(r.st, h)
	if err != nil {
		c.dieErr(err)
	}
	if len(cm.ParentHashes) > 1 {
		c.errorf("commit %s is a merge but no -m option was given.", h)
		c.die("%s failed", verb)
	}
	target, head, err := r.head()
	if err != nil {
		c.dieErr(err)
	}
	headTree, err := r.treeOf(head)
	if err != nil {
		c.dieErr(err)
	}
	parentTree := map[string]treeEntry{}
	if len(cm.ParentHashes) == 1 {
		if parentTree, err = r.treeOf(cm.ParentHashes[0]); err != nil {
			c.dieErr(err)
		}
	}
	theirTree, err := r.flatTree(cm.TreeHash)
	if err != nil {
		c.dieErr(err)
	}
	subj, _ := subjectBody(cm.Message)
	short := h.String()[:7]
	label := fmt.Sprintf("%s (%s)", short, subj)
	base, theirs := parentTree, theirTree
	msg := cm.Message
	if revert {
		base, theirs = theirTree, parentTree
		label = "parent of " + label
		msg = fmt.Sprintf("Revert \"%s\"\n\nThis reverts commit %s.\n", subj, h)
	} else if o.has("x") {
		if !strings.HasSuffix(msg, "\n") {
			msg += "\n"
		}
		msg += fmt.Sprintf("\n(cherry picked from commit %s)\n", h)
	}
	idx, err := r.readIndex()
	if err != nil {
		c.dieErr(err)
	}
	if !o.has("no-commit") && !sameFlat(indexFiles(idx), headTree) {
		c.errorf("your local changes would be overwritten by %s.", verb)
		fmt.Fprintln(c.err, "hint: commit your changes or stash them to proceed.")
		c.die("%s failed", verb)
	}
	st, err := r.status(false)
	if err != nil {
		c.dieErr(err)
	}
	var dirty []string
	for _, ch := range st.changes {
		if base[ch.Path] != theirs[ch.Path] {
			dirty = append(dirty, ch.Path)
		}
	}
	if len(dirty) > 0 {
		c.reportOverwrite("merge", dirty, nil)
		c.die("%s failed", verb)
	}
	conflicts, msgs := c.mergeFiles(r, idx, base, indexFiles(idx), theirs, "HEAD", label)
	if err := r.writeIndex(idx); err != nil {
		c.dieErr(err)
	}
	for _, m := range msgs {
		fmt.Fprintln(c.out, m)
	}
	if len(conflicts) > 0 {
		if err := c.storeMergeResult(r, idx, conflicts); err != nil {
			c.dieErr(err)
		}
		if !o.has("no-commit") {
			state := "CHERRY_PICK_HEAD"
			if revert {
				state = "REVERT_HEAD"
			}
			_ = c.env.FS.WriteFile(c.env.Ctx, r.GitDir+"/"+state, []byte(h.String()+"\n"), 0o644)
		}
		mm := msg + "\n# Conflicts:\n"
		for _, p := range conflicts {
			mm += "#\t" + p + "\n"
		}
		_ = c.env.FS.WriteFile(c.env.Ctx, r.GitDir+"/MERGE_MSG", []byte(mm), 0o644)
		what := "apply"
		if revert {
			what = "revert"
		}
		c.errorf("could not %s %s... %s", what, short, subj)
		fmt.Fprintf(c.err, "hint: After resolving the conflicts, mark them with\nhint: \"git add/rm <pathspec>\", then run\nhint: \"git %[1]s --continue\".\nhint: You can instead skip this commit with \"git %[1]s --skip\".\nhint: To abort and get back to the state before \"git %[1]s\",\nhint: run \"git %[1]s --abort\".\n", verb)
		return 1
	}
	if o.has("no-commit") {
		return 0
	}
	files := indexFiles(idx)
	if sameFlat(files, headTree) && !o.has("allow-empty") {
		state := "CHERRY_PICK_HEAD"
		if revert {
			state = "REVERT_HEAD"
		}
		_ = c.env.FS.WriteFile(c.env.Ctx, r.GitDir+"/"+state, []byte(h.String()+"\n"), 0o644)
		_ = c.env.FS.WriteFile(c.env.Ctx, r.GitDir+"/MERGE_MSG", []byte(msg), 0o644)
		fmt.Fprintf(c.err, "The previous %s is now empty, possibly due to conflict resolution.\nIf you wish to commit it anyway, use:\n\n    git commit --allow-empty\n\nOtherwise, please use 'git %s --skip'\n", verb, verb)
		return 1
	}
	author, committer := c.signatures(r)
	if !revert {
		author = cm.Author
	}
	treeHash, err := r.writeTree(files)
	if err != nil {
		c.dieErr(err)
	}
	var parents []plumbing.Hash
	if !head.IsZero() {
		parents = []plumbing.Hash{head}
	}
	nh, err := r.storeCommit(&object.Commit{Author: author, Committer: committer, Message: cleanupMessage(msg, false), TreeHash: treeHash, ParentHashes: parents})
	if err != nil {
		c.dieErr(err)
	}
	newSubj, _ := subjectBody(cleanupMessage(msg, false))
	if err := r.updateHead(nh, c.name+": "+newSubj); err != nil {
		c.dieErr(err)
	}
	_ = c.env.FS.Remove(c.env.Ctx, r.GitDir+"/MERGE_MSG")
	where := shortBranch(target)
	if target == "" {
		where = "detached HEAD"
	}
	nsubj, _ := subjectBody(msg)
	fmt.Fprintf(c.out, "[%s %s] %s\n", where, nh.String()[:7], nsubj)
	if author.Name != committer.Name || author.Email != committer.Email {
		fmt.Fprintf(c.out, " Author: %s <%s>\n", author.Name, author.Email)
	}
	fmt.Fprintf(c.out, " Date: %s\n", gitDate(author.When))
	parentHash := emptyTreeHash
	if !head.IsZero() {
		hc, err := object.GetCommit(r.st, head)
		if err != nil {
			c.dieErr(err)
		}
		parentHash = hc.TreeHash
	}
	c.commitSummary(r, parentHash, treeHash)
	return 0
}

// clearPickState removes what a cherry-pick or revert in progress left.
func (c *cmd) clearPickState(r *Repo) {
	for _, f := range append(pickState, "MERGE_MSG") {
		_ = c.env.FS.Remove(c.env.Ctx, r.GitDir+"/"+f)
	}
}

// pickedCommit is the commit of a cherry-pick (pick) or revert in
// progress, which the next commit concludes.
type pickedCommit struct {
	cm   *object.Commit
	pick bool
}

// pickInProgress reads CHERRY_PICK_HEAD or REVERT_HEAD (nil when neither,
// or when amending).
func (c *cmd) pickInProgress(r *Repo, amend bool) *pickedCommit {
	if amend {
		return nil
	}
	for i, f := range pickState {
		data, err := c.env.FS.ReadFile(c.env.Ctx, r.GitDir+"/"+f)
		if err != nil {
			continue
		}
		cm, err := object.GetCommit(r.st, plumbing.NewHash(strings.TrimSpace(string(data))))
		if err != nil {
			continue
		}
		return &pickedCommit{cm: cm, pick: i == 0}
	}
	return nil
}
