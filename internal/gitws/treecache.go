package gitws

import (
	"container/list"
	"maps"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/desk-dev/desk/internal/vfs"
)

// MaxTreeCacheEntries bounds the files held by one store's flattened-tree
// cache, summed over its trees (a tree with more files is not cached).
const MaxTreeCacheEntries = 200_000

// storeState is what this package keeps per open store (vfs.FS.Attached):
// the in-process file locks and the flattened-tree cache. Nothing is kept
// in package variables, so two stores never share locks or trees, and a
// closed store's state goes with it.
type storeState struct {
	locks sync.Map // store path of a file → *sync.Mutex
	trees treeCache
}

type storeStateKey struct{}

// stateOf returns the store's state, made on first use.
func stateOf(f *vfs.FS) *storeState {
	return f.Attached(storeStateKey{}, func() any {
		return &storeState{trees: treeCache{lru: list.New(), byKey: map[treeCacheKey]*list.Element{}}}
	}).(*storeState)
}

// treeCache keeps recently flattened trees (every file of a tree by path):
// status, diff and commit flatten HEAD's tree on every command, and a
// 10,000-file tree is about a hundred tree objects to decode from a pack.
// A tree is named by its hash, so a cached flattening never goes stale; the
// key also names the git directory, so a repository only gets trees it has
// read itself. Callers get a copy.
type treeCache struct {
	mu      sync.Mutex
	lru     *list.List // of *treeCacheItem, most recent first
	byKey   map[treeCacheKey]*list.Element
	entries int
}

type treeCacheKey struct {
	gitDir string
	tree   plumbing.Hash
}

type treeCacheItem struct {
	key   treeCacheKey
	files map[string]treeEntry
}

func (c *treeCache) get(k treeCacheKey) (map[string]treeEntry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byKey[k]
	if !ok {
		return nil, false
	}
	c.lru.MoveToFront(el)
	return maps.Clone(el.Value.(*treeCacheItem).files), true
}

func (c *treeCache) put(k treeCacheKey, files map[string]treeEntry) {
	if len(files) > MaxTreeCacheEntries {
		return
	}
	files = maps.Clone(files)
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.byKey[k]; ok {
		return
	}
	c.byKey[k] = c.lru.PushFront(&treeCacheItem{k, files})
	c.entries += len(files)
	for c.entries > MaxTreeCacheEntries {
		el := c.lru.Back()
		it := el.Value.(*treeCacheItem)
		c.lru.Remove(el)
		delete(c.byKey, it.key)
		c.entries -= len(it.files)
	}
}
