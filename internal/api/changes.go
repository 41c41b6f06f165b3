package api

import (
	"net/http"

	"github.com/desk-dev/desk/client"
	"github.com/desk-dev/desk/client/quote"
	"github.com/desk-dev/desk/internal/vfs"
)

func wireChange(c vfs.Change) client.Change {
	return client.Change{Seq: c.Seq, Time: c.Time.UTC(), Op: string(c.Op), Path: quote.Path(c.Path), OldPath: quote.Path(c.OldPath), Ino: c.Ino, Off: c.Off, Len: c.Len, Actor: c.Actor}
}

// handleChanges returns a page of the change journal, or with follow=1
// streams it live until the client goes away, the workspace closes or the
// server shuts down.
func (s *Server) handleChanges(w http.ResponseWriter, r *http.Request, c *call) error {
	since, err := resumePoint(r, "since", 0)
	if err != nil {
		return err
	}
	follow, err := qbool(r, "follow")
	if err != nil {
		return err
	}
	limit, err := s.limit(r)
	if err != nil {
		return err
	}
	fsys := c.lease.Workspace().FS()
	// A page (and, before following, a check that the cursor is still in the journal).
	page, err := fsys.Changes(r.Context(), since, limit)
	if err != nil {
		return err
	}
	if !follow {
		out := client.ChangeList{Changes: make([]client.Change, 0, len(page)), Next: since}
		for _, ch := range page {
			out.Changes = append(out.Changes, wireChange(ch))
			out.Next = ch.Seq
		}
		return writeJSON(w, http.StatusOK, out)
	}
	ctx, stop := s.longCtx(r)
	defer stop()
	ch, errf := fsys.Subscribe(ctx, since)
	st, heartbeat, end := s.liveStream(w, r)
	defer end()
	for {
		select {
		case c, ok := <-ch:
			if !ok {
				if err := errf(); err != nil {
					st.fail(err)
					return err
				}
				if s.ctx.Err() != nil {
					st.fail(errorf(http.StatusServiceUnavailable, CodeUnavailable, "the server is shutting down"))
				}
				return nil
			}
			if err := st.send(c.Seq, "change", wireChange(c)); err != nil {
				return nil
			}
		case <-heartbeat:
			if st.ping() != nil {
				return nil
			}
		}
	}
}
