package gitws

import (
	"container/list"
	"maps"
	"sync"

	"github.com/desk-dev/desk/internal/vfs"
	"github.com/go-git/go-git/v5/plumbing"
)

// MaxTreeCacheEntries bounds the files held by the flattened-tree cache,
// summed over its trees (a tree with more files is not cached).
const MaxTreeCacheEntries = 200_000

// treeCache keeps recently flattened trees (every file of a tree by path):
// status, diff and commit flatten HEAD's tree on every command, and a
// 10,000-file tree is about a hundred tree objects to decode from a pack.
// A tree is named by its hash, so a cached flattening never goes stale; the
// key also names the store and the git directory, so a repository only
// gets trees it has read itself. Callers get a copy.
var treeCache = struct {
	sync.Mutex
	lru     *list.List // of *treeCacheItem, most recent first
	byKey   map[treeCacheKey]*list.Element
	entries int
}{lru: list.New(), byKey: map[treeCacheKey]*list.Element{}}

type treeCacheKey struct {
	fs     *vfs.FS
	gitDir string
	tree   plumbing.Hash
}

type treeCacheItem struct {
	key   treeCacheKey
	files map[string]treeEntry
}

func treeCacheGet(k treeCacheKey) (map[string]treeEntry, bool) {
	treeCache.Lock()
	defer treeCache.Unlock()
	el, ok := treeCache.byKey[k]
	if !ok {
		return nil, false
	}
	treeCache.lru.MoveToFront(el)
	return maps.Clone(el.Value.(*treeCacheItem).files), true
}

func treeCachePut(k treeCacheKey, files map[string]treeEntry) {
	if len(files) > MaxTreeCacheEntries {
		return
	}
	files = maps.Clone(files)
	treeCache.Lock()
	defer treeCache.Unlock()
	if _, ok := treeCache.byKey[k]; ok {
		return
	}
	treeCache.byKey[k] = treeCache.lru.PushFront(&treeCacheItem{k, files})
	treeCache.entries += len(files)
	for treeCache.entries > MaxTreeCacheEntries {
		el := treeCache.lru.Back()
		it := el.Value.(*treeCacheItem)
		treeCache.lru.Remove(el)
		delete(treeCache.byKey, it.key)
		treeCache.entries -= len(it.files)
	}
}
