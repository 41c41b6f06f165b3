package s3remote_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/desk-dev/desk/internal/share"
	"github.com/desk-dev/desk/internal/share/s3remote"
	"github.com/desk-dev/desk/internal/share/s3remote/s3test"
	"github.com/desk-dev/desk/internal/testenv"
)

func TestParseURL(t *testing.T) {
	for in, want := range map[string][2]string{
		"s3://b":          {"b", ""},
		"s3://b/":         {"b", ""},
		"s3://b/p":        {"b", "p/"},
		"s3://b/p/q/":     {"b", "p/q/"},
		"s3://my.bucket/": {"my.bucket", ""},
	} {
		b, p, err := s3remote.ParseURL(in)
		if err != nil || b != want[0] || p != want[1] {
			t.Errorf("ParseURL(%q) = %q %q %v, want %q", in, b, p, err, want)
		}
	}
	for _, bad := range []string{"", "b/p", "http://b/p", "s3:///p", "s3://b/p?x=1", "s3://u@b/p"} {
		if _, _, err := s3remote.ParseURL(bad); err == nil {
			t.Errorf("ParseURL(%q): no error", bad)
		}
	}
}

// rig is a versitygw with a bucket, and a share store keeping its content
// there.
type rig struct {
	gw     *s3test.Gateway
	remote *s3remote.Store
	shares *share.Store
	clock  *testenv.Clock
	bucket string
}

func newRig(t *testing.T) *rig {
	t.Helper()
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true") // never ask a metadata service
	gw := s3test.Start(t)
	ctx := context.Background()
	const bucket = "desk-shares"
	gw.Bucket(t, bucket)
	remote, err := s3remote.New(ctx, s3remote.Options{
		URL: "s3://" + bucket + "/links/v1", Endpoint: gw.URL, Region: s3test.Region,
		AccessKeyID: s3test.Access, SecretAccessKey: s3test.Secret,
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := remote.Check(ctx); err != nil {
		t.Fatal(err)
	}
	c := testenv.NewClock(time.Now())
	s, err := share.Open(ctx, share.Options{Dir: t.TempDir(), Remote: remote, Now: c.Now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return &rig{gw: gw, remote: remote, shares: s, clock: c, bucket: bucket}
}

// object is where the POSIX backend keeps a share's object.
func (r *rig) object(sh share.Share) string {
	return filepath.Join(r.gw.Root, r.bucket, "links", "v1", sh.Workspace, sh.ID)
}

func TestS3Share(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	content := bytes.Repeat([]byte("desk share over S3\n"), 5000)
	cr, err := r.shares.Create(ctx, "demo", share.Source{Path: "/workspace/out/notes.txt", Content: bytes.NewReader(content), TTL: 2 * time.Hour, Disposition: share.Attachment})
	if err != nil {
		t.Fatal(err)
	}
	if !cr.Remote {
		t.Fatal("share not marked remote")
	}
	u, err := url.Parse(cr.URL)
	if err != nil || !strings.HasPrefix(cr.URL, r.gw.URL+"/"+r.bucket+"/links/v1/demo/"+cr.ID) {
		t.Fatalf("URL %q: not a path-style URL of the object", cr.URL)
	}
	if got := u.Query().Get("X-Amz-Expires"); got != "7200" {
		t.Errorf("X-Amz-Expires = %q, want the share's life, 7200", got)
	}
	if _, err := os.Stat(r.object(cr.Share)); err != nil {
		t.Fatalf("the object is not in the bucket's directory: %v", err)
	}
	// A plain GET, without credentials.
	res, body := testenv.Fetch(t, "GET", cr.URL)
	if res.StatusCode != 200 || !bytes.Equal(body, content) {
		t.Fatalf("GET: %s, %d bytes", res.Status, len(body))
	}
	if ct := res.Header.Get("Content-Type"); ct != "text/plain; charset=utf-8" {
		t.Errorf("Content-Type %q", ct)
	}
	if cd := res.Header.Get("Content-Disposition"); cd != "attachment; filename=notes.txt" {
		t.Errorf("Content-Disposition %q", cd)
	}
	res, body = testenv.Fetch(t, "GET", cr.URL, "Range", "bytes=19-37")
	if res.StatusCode != http.StatusPartialContent || string(body) != string(content[19:38]) {
		t.Errorf("range: %s %q", res.Status, body)
	}
	// The URL without its signature is refused: the object is not public.
	u.RawQuery = ""
	if res, _ := testenv.Fetch(t, "GET", u.String()); res.StatusCode != http.StatusForbidden {
		t.Errorf("unsigned GET: %s, want 403", res.Status)
	}
	// Revoking deletes the object: the presigned URL stops at once.
	if _, err := r.shares.Revoke(ctx, "demo", cr.ID); err != nil {
		t.Fatal(err)
	}
	if res, _ := testenv.Fetch(t, "GET", cr.URL); res.StatusCode != http.StatusNotFound {
		t.Errorf("GET after revoke: %s, want 404", res.Status)
	}
	if _, err := os.Stat(r.object(cr.Share)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("object after revoke: %v", err)
	}
}

// TestS3Expiry: the S3 server itself refuses a presigned URL past the
// share's expiry. The store's clock is set back, so the URL is signed
// in the past: no waiting.
func TestS3Expiry(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	now := time.Now()
	r.clock.Set(now.Add(-2 * time.Hour))
	old, err := r.shares.Create(ctx, "demo", share.Source{Path: "/a.txt", Content: strings.NewReader("old"), TTL: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	r.clock.Set(now.Add(-30 * time.Minute))
	live, err := r.shares.Create(ctx, "demo", share.Source{Path: "/b.txt", Content: strings.NewReader("live"), TTL: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if res, body := testenv.Fetch(t, "GET", live.URL); res.StatusCode != 200 || string(body) != "live" {
		t.Fatalf("live URL: %s %q", res.Status, body)
	}
	res, body := testenv.Fetch(t, "GET", old.URL)
	if res.StatusCode != http.StatusForbidden || !strings.Contains(string(body), "xpired") {
		t.Fatalf("expired URL: %s %s, want 403 (expired)", res.Status, body)
	}
	// The sweep deletes the expired share's object, not the live one's.
	r.clock.Set(now)
	if res, err := r.shares.Sweep(ctx); err != nil || res.Dropped != 1 {
		t.Fatalf("sweep: %+v %v", res, err)
	}
	if _, err := os.Stat(r.object(old.Share)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("expired object after the sweep: %v", err)
	}
	if _, err := os.Stat(r.object(live.Share)); err != nil {
		t.Errorf("live object after the sweep: %v", err)
	}
	// Deleting the workspace deletes the rest.
	if err := r.shares.DeleteWorkspace(ctx, "demo"); err != nil {
		t.Fatal(err)
	}
	if res, _ := testenv.Fetch(t, "GET", live.URL); res.StatusCode != http.StatusNotFound {
		t.Errorf("GET after the workspace's deletion: %s, want 404", res.Status)
	}
}

// TestS3Errors: a bucket that does not exist and wrong credentials are
// reported by Check, naming the server's code.
func TestS3Errors(t *testing.T) {
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	gw := s3test.Start(t)
	ctx := context.Background()
	for name, o := range map[string]s3remote.Options{
		"no bucket": {URL: "s3://missing", AccessKeyID: s3test.Access, SecretAccessKey: s3test.Secret},
		"bad key":   {URL: "s3://missing", AccessKeyID: s3test.Access, SecretAccessKey: "wrong-secret-0123456789"},
	} {
		o.Endpoint, o.Region = gw.URL, s3test.Region
		st, err := s3remote.New(ctx, o)
		if err != nil {
			t.Fatal(err)
		}
		if err := st.Check(ctx); err == nil || !strings.Contains(err.Error(), "s3://missing") {
			t.Errorf("%s: Check = %v", name, err)
		}
	}
	if _, err := s3remote.New(ctx, s3remote.Options{URL: "s3://b", AccessKeyID: "only-the-key"}); err == nil {
		t.Error("an access key without its secret: no error")
	}
}
