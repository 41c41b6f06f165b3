package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/desk-dev/desk/client"
)

// MaxPortLinks is how many unexpired port links a PortLinks records; past
// it, making a link is refused (429) until some expire or are revoked.
const MaxPortLinks = 4096

// PortLinks records the port links a server made, so that one can be
// listed and revoked by its id: a file (desk serve: DATA/port-links.json,
// 0600) rewritten through a temporary file and a rename on every change,
// holding each unexpired link's id, workspace, port, times and revocation
// (expired ones are dropped at the next change). A link is still checked by
// its signature alone; the record adds the revocation. Its methods are safe
// for concurrent use; one process (the front) owns the file.
type PortLinks struct {
	path string
	now  func() time.Time

	mu    sync.Mutex
	links map[string]client.PortLink // by id; Path and URL empty
}

type portLinksFile struct {
	Links []client.PortLink `json:"links"`
}

// OpenPortLinks opens (or starts) the record at path.
func OpenPortLinks(path string) (*PortLinks, error) {
	l := &PortLinks{path: path, now: time.Now, links: map[string]client.PortLink{}}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return l, nil
	}
	if err != nil {
		return nil, fmt.Errorf("open port links: %w", err)
	}
	var f portLinksFile
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("open port links %s: malformed: %w", path, err)
	}
	for _, x := range f.Links {
		if x.ID != "" {
			l.links[x.ID] = x
		}
	}
	return l, nil
}

// pruneLocked drops the expired links.
func (l *PortLinks) pruneLocked(now time.Time) {
	for id, x := range l.links {
		if !now.Before(x.Expires) {
			delete(l.links, id)
		}
	}
}

// saveLocked writes the record.
func (l *PortLinks) saveLocked() error {
	f := portLinksFile{Links: make([]client.PortLink, 0, len(l.links))}
	for _, x := range l.links {
		f.Links = append(f.Links, x)
	}
	sort.Slice(f.Links, func(i, j int) bool { return f.Links[i].ID < f.Links[j].ID })
	b, err := json.Marshal(f)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(l.path), ".port-links-*")
	if err != nil {
		return fmt.Errorf("save port links: %w", err)
	}
	_, err = tmp.Write(b)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), l.path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("save port links: %w", err)
	}
	return nil
}

// add records a new link.
func (l *PortLinks) add(x client.PortLink) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.pruneLocked(l.now())
	if len(l.links) >= MaxPortLinks {
		return errorf(http.StatusTooManyRequests, CodeTooMany, "the server has %d unexpired port links, the limit: revoke some or wait for them to expire", len(l.links))
	}
	x.Path, x.URL = "", ""
	l.links[x.ID] = x
	return l.saveLocked()
}

// revoke revokes workspace ws's link id (404 when ws has no such
// unexpired link; revoking twice keeps the first time).
func (l *PortLinks) revoke(ws, id string) (client.PortLink, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	x, ok := l.links[id]
	if !ok || x.Workspace != ws || !now.Before(x.Expires) {
		return client.PortLink{}, errorf(http.StatusNotFound, CodeNotFound, "workspace %s has no unexpired port link %q", ws, id)
	}
	if x.Revoked == nil {
		t := now.UTC().Truncate(time.Second)
		x.Revoked = &t
		l.links[id] = x
		l.pruneLocked(now)
		if err := l.saveLocked(); err != nil {
			return client.PortLink{}, err
		}
	}
	return x, nil
}

// revoked reports whether link id was revoked.
func (l *PortLinks) revoked(id string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	x, ok := l.links[id]
	return ok && x.Revoked != nil
}

// list returns workspace ws's unexpired links by expiry.
func (l *PortLinks) list(ws string) []client.PortLink {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	out := []client.PortLink{}
	for _, x := range l.links {
		if x.Workspace == ws && now.Before(x.Expires) {
			out = append(out, x)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].Expires.Equal(out[j].Expires) {
			return out[i].Expires.Before(out[j].Expires)
		}
		return out[i].ID < out[j].ID
	})
	return out
}
