package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/desk-dev/desk/internal/artifact"
	"github.com/desk-dev/desk/internal/share"
	"github.com/desk-dev/desk/internal/share/s3remote"
)

// shareSweepEvery is how often desk serve's front sweeps the share store
// (removes ended shares' content, forgets the long ended).
const shareSweepEvery = 10 * time.Minute

// shareFlags are desk serve's flags for share links, passed on to its
// workers as they are (so that both open the same store the same way).
type shareFlags struct {
	publicURL     string
	store         string
	endpoint      string
	region        string
	profile       string
	accessKey     string
	secretKeyFile string
}

// addShareFlags defines the share flags on fl.
func addShareFlags(fl *flag.FlagSet) *shareFlags {
	sf := &shareFlags{}
	fl.StringVar(&sf.publicURL, "public-url", "", "the URL share links start with (e.g. https://desk.example.com behind a proxy; default: the listening URL)")
	fl.StringVar(&sf.store, "store", "", "keep shared files in S3: s3://BUCKET[/PREFIX] (links are then presigned S3 URLs; default: in DATA/shares, served at /s/TOKEN)")
	fl.StringVar(&sf.endpoint, "store-endpoint", "", "the S3 endpoint URL of --store, for S3-compatible servers (default: $AWS_ENDPOINT_URL_S3, $AWS_ENDPOINT_URL, else AWS's)")
	fl.StringVar(&sf.region, "store-region", "", "the region of --store (default: $AWS_REGION, the AWS config file's, else us-east-1)")
	fl.StringVar(&sf.profile, "store-profile", "", "the profile of the AWS config and credentials files for --store (default: $AWS_PROFILE)")
	fl.StringVar(&sf.accessKey, "store-access-key", "", "the access key id of --store (with --store-secret-key-file; default: $AWS_ACCESS_KEY_ID, the AWS credentials file, ...)")
	fl.StringVar(&sf.secretKeyFile, "store-secret-key-file", "", "a file holding the secret access key of --store-access-key (never the secret itself on a command line)")
	return sf
}

// check reports a bad combination of share flags.
func (sf *shareFlags) check() error {
	if sf.store == "" {
		if sf.endpoint != "" || sf.region != "" || sf.profile != "" || sf.accessKey != "" || sf.secretKeyFile != "" {
			return usagef("the --store-* flags need --store s3://BUCKET[/PREFIX]")
		}
	} else if _, _, err := s3remote.ParseURL(sf.store); err != nil {
		return usagef("--store: %v", err)
	}
	if (sf.accessKey == "") != (sf.secretKeyFile == "") {
		return usagef("--store-access-key and --store-secret-key-file go together")
	}
	if sf.publicURL != "" && !strings.HasPrefix(sf.publicURL, "http://") && !strings.HasPrefix(sf.publicURL, "https://") {
		return usagef("--public-url %q: want an http:// or https:// URL", sf.publicURL)
	}
	return nil
}

// args are the flags for a worker's command line.
func (sf *shareFlags) args(publicURL string) []string {
	a := []string{"--public-url", publicURL}
	for _, f := range [][2]string{{"store", sf.store}, {"store-endpoint", sf.endpoint}, {"store-region", sf.region},
		{"store-profile", sf.profile}, {"store-access-key", sf.accessKey}, {"store-secret-key-file", sf.secretKeyFile}} {
		if f[1] != "" {
			a = append(a, "--"+f[0], f[1])
		}
	}
	return a
}

// open opens the share store of the data directory dataDir: links under
// publicURL, content in DATA/shares or in the --store bucket. check asks
// the bucket once (the front does; workers trust it).
func (sf *shareFlags) open(ctx context.Context, dataDir, publicURL string, check bool, log *slog.Logger) (*share.Store, error) {
	o := share.Options{Dir: filepath.Join(dataDir, "shares"), BaseURL: publicURL, Logger: log}
	if sf.store != "" {
		ro := s3remote.Options{URL: sf.store, Endpoint: sf.endpoint, Region: sf.region, Profile: sf.profile, AccessKeyID: sf.accessKey}
		if sf.secretKeyFile != "" {
			b, err := os.ReadFile(sf.secretKeyFile)
			if err != nil {
				return nil, fmt.Errorf("read --store-secret-key-file: %w", err)
			}
			ro.SecretAccessKey = strings.TrimSpace(string(b))
		}
		r, err := s3remote.New(ctx, ro)
		if err != nil {
			return nil, err
		}
		if check {
			if err := r.Check(ctx); err != nil {
				return nil, fmt.Errorf("--store: %w", err)
			}
		}
		o.Remote = r
	}
	return share.Open(ctx, o)
}

// sweepShares sweeps st every shareSweepEvery until ctx ends.
func sweepShares(ctx context.Context, st *share.Store, log *slog.Logger) {
	t := time.NewTicker(shareSweepEvery)
	defer t.Stop()
	for {
		if res, err := st.Sweep(ctx); err != nil {
			if ctx.Err() == nil {
				log.Warn("share sweep", "err", err)
			}
		} else if res.Dropped+res.Forgotten > 0 {
			log.Debug("share sweep", "content_removed", res.Dropped, "forgotten", res.Forgotten)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// openArtifacts opens the artifact store of the data directory dataDir
// (DATA/artifacts: published repositories and their tokens).
func openArtifacts(ctx context.Context, dataDir string) (*artifact.Store, error) {
	return artifact.Open(ctx, artifact.Options{Dir: filepath.Join(dataDir, "artifacts")})
}
