// Package s3remote keeps share content in an S3 bucket (any S3-compatible
// store: AWS, MinIO, versitygw, ...): a share.Remote over the AWS SDK for
// Go v2. Objects are put under the configured prefix with the content type
// and disposition a GET returns; links are presigned GET URLs (SigV4 query
// authentication) that expire with the share, checked by the S3 server.
//
// Configuration comes, in order of precedence, from Options (desk serve's
// --store-* flags), then the SDK's standard sources: the environment
// (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, AWS_REGION,
// AWS_PROFILE, AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL, ...) and the shared
// config and credentials files (~/.aws/config, ~/.aws/credentials, or
// AWS_CONFIG_FILE and AWS_SHARED_CREDENTIALS_FILE).
package s3remote
