package s3remote

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"
)

// DefaultRegion is the region used when no source names one.
const DefaultRegion = "us-east-1"

// Options configure a Store. Empty fields are taken from the SDK's standard
// sources (see the package documentation).
type Options struct {
	// URL is s3://BUCKET[/PREFIX]: objects are PREFIX/KEY in BUCKET.
	URL string
	// Endpoint is the S3 endpoint URL (http://127.0.0.1:7070 for a local
	// server); "": AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL, else AWS's own.
	Endpoint string
	// Region; "": AWS_REGION, the config file's, else DefaultRegion.
	Region string
	// Profile of the shared config files; "": AWS_PROFILE, else "default".
	Profile string
	// AccessKeyID and SecretAccessKey, if both set, are the credentials;
	// else the SDK's chain (environment, shared files, ...).
	AccessKeyID, SecretAccessKey string
	// VirtualHosted addresses the bucket as BUCKET.ENDPOINT rather than
	// ENDPOINT/BUCKET. The default is path-style when Endpoint is set
	// (S3-compatible servers), virtual-hosted for AWS's endpoints.
	VirtualHosted bool
	// HTTPClient sends the requests. Default: the SDK's.
	HTTPClient *http.Client
}

// Store is a bucket and prefix that share content goes to.
type Store struct {
	c      *s3.Client
	ps     *s3.PresignClient
	bucket string
	prefix string // "" or ending in "/"
	url    string
}

// ParseURL splits s3://BUCKET[/PREFIX] into its bucket and prefix ("" or
// ending in "/").
func ParseURL(s string) (bucket, prefix string, err error) {
	u, err := url.Parse(s)
	if err != nil || u.Scheme != "s3" || u.Host == "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return "", "", fmt.Errorf("store %q: want s3://BUCKET or s3://BUCKET/PREFIX", s)
	}
	prefix = strings.Trim(u.Path, "/")
	if prefix != "" {
		prefix += "/"
	}
	return u.Host, prefix, nil
}

// New returns the store o describes. It sends nothing: Check does.
func New(ctx context.Context, o Options) (*Store, error) {
	bucket, prefix, err := ParseURL(o.URL)
	if err != nil {
		return nil, err
	}
	lo := []func(*config.LoadOptions) error{
		// S3-compatible servers do not all take the SDK's default trailing
		// checksums; the payload is signed whole anyway.
		config.WithRequestChecksumCalculation(aws.RequestChecksumCalculationWhenRequired),
		config.WithResponseChecksumValidation(aws.ResponseChecksumValidationWhenRequired),
	}
	if o.Region != "" {
		lo = append(lo, config.WithRegion(o.Region))
	}
	if o.Profile != "" {
		lo = append(lo, config.WithSharedConfigProfile(o.Profile))
	}
	if o.AccessKeyID != "" || o.SecretAccessKey != "" {
		if o.AccessKeyID == "" || o.SecretAccessKey == "" {
			return nil, errors.New("new s3 store: an access key needs its secret key, and the other way round")
		}
		lo = append(lo, config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider(o.AccessKeyID, o.SecretAccessKey, "")))
	}
	if o.HTTPClient != nil {
		lo = append(lo, config.WithHTTPClient(o.HTTPClient))
	}
	cfg, err := config.LoadDefaultConfig(ctx, lo...)
	if err != nil {
		return nil, fmt.Errorf("new s3 store: load configuration: %w", err)
	}
	if cfg.Region == "" {
		cfg.Region = DefaultRegion
	}
	c := s3.NewFromConfig(cfg, func(so *s3.Options) {
		if o.Endpoint != "" {
			so.BaseEndpoint = aws.String(o.Endpoint)
		}
		so.UsePathStyle = (o.Endpoint != "" || so.BaseEndpoint != nil) && !o.VirtualHosted
	})
	return &Store{c: c, ps: s3.NewPresignClient(c), bucket: bucket, prefix: prefix, url: "s3://" + bucket + "/" + prefix}, nil
}

// String is the store's s3:// URL.
func (s *Store) String() string { return s.url }

// Check asks the server whether the bucket exists and the credentials may
// use it: desk serve calls it once at start, to fail early.
func (s *Store) Check(ctx context.Context) error {
	if _, err := s.c.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: aws.String(s.bucket)}); err != nil {
		return fmt.Errorf("check %s: %w", s.url, explain(err))
	}
	return nil
}

// Put stores size bytes of r at the prefix + key.
func (s *Store) Put(ctx context.Context, key string, r io.ReadSeeker, size int64, contentType, contentDisposition string) error {
	_, err := s.c.PutObject(ctx, &s3.PutObjectInput{
		Bucket: aws.String(s.bucket), Key: aws.String(s.prefix + key), Body: r, ContentLength: aws.Int64(size),
		ContentType: aws.String(contentType), ContentDisposition: aws.String(contentDisposition),
	})
	if err != nil {
		return fmt.Errorf("put %s%s: %w", s.url, key, explain(err))
	}
	return nil
}

// Delete removes the prefix + key.
func (s *Store) Delete(ctx context.Context, key string) error {
	_, err := s.c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(s.prefix + key)})
	var nsk interface{ ErrorCode() string }
	if errors.As(err, &nsk) && nsk.ErrorCode() == "NoSuchKey" {
		return nil
	}
	if err != nil {
		return fmt.Errorf("delete %s%s: %w", s.url, key, explain(err))
	}
	return nil
}

// URL presigns a GET of the prefix + key, signed at signed and valid for
// ttl (at most 7 days, SigV4's bound).
func (s *Store) URL(ctx context.Context, key string, signed time.Time, ttl time.Duration) (string, error) {
	req, err := s.ps.PresignGetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(s.prefix + key)},
		func(po *s3.PresignOptions) {
			po.Expires = ttl
			po.Presigner = signedAt{v4.NewSigner(), signed}
		})
	if err != nil {
		return "", fmt.Errorf("presign %s%s: %w", s.url, key, err)
	}
	return req.URL, nil
}

// signedAt is the SDK's presigner with the signing time given, so that the
// URL's validity starts when the share was made (the store's clock).
type signedAt struct {
	v4 *v4.Signer
	at time.Time
}

func (p signedAt) PresignHTTP(ctx context.Context, creds aws.Credentials, r *http.Request, payloadHash, service, region string, _ time.Time, optFns ...func(*v4.SignerOptions)) (string, http.Header, error) {
	return p.v4.PresignHTTP(ctx, creds, r, payloadHash, service, region, p.at, optFns...)
}

// explain shortens the SDK's errors to the server's code and message.
func explain(err error) error {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return fmt.Errorf("%s: %s", ae.ErrorCode(), ae.ErrorMessage())
	}
	return err
}
