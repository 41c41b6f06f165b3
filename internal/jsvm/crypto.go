package jsvm

import (
	"crypto/hmac"
	"crypto/md5"
	"crypto/rand"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"fmt"
	"hash"

	"github.com/desk-dev/desk/internal/jsvm/qjs"
)

// hashes are the digests node:crypto's createHash and createHmac offer.
var hashes = map[string]func() hash.Hash{
	"md5": md5.New, "sha1": sha1.New, "sha256": sha256.New, "sha384": sha512.New384, "sha512": sha512.New,
}

func init() {
	hostFuncs["hashSupported"] = func(x *execution, args []qjs.Value) (qjs.Value, error) {
		alg, err := x.argString(args, 0)
		_, ok := hashes[alg]
		return qjs.Bool(ok), err
	}
	hostFuncs["hash"] = func(x *execution, args []qjs.Value) (qjs.Value, error) {
		alg, err := x.argString(args, 0)
		if err != nil {
			return qjs.Undefined, err
		}
		mk, ok := hashes[alg]
		if !ok {
			return qjs.Undefined, fmt.Errorf("digest method not supported: %s", alg)
		}
		data, _ := x.c.Bytes(arg(args, 1))
		var h hash.Hash
		if key, ok := x.c.Bytes(arg(args, 2)); ok {
			h = hmac.New(mk, key)
		} else {
			h = mk()
		}
		h.Write(data)
		return x.c.ArrayBuffer(h.Sum(nil))
	}
	hostFuncs["randomBytes"] = func(x *execution, args []qjs.Value) (qjs.Value, error) {
		n, err := x.argInt(args, 0)
		if err != nil {
			return qjs.Undefined, err
		}
		if n < 0 || n > 1<<26 {
			return qjs.Undefined, fmt.Errorf("randomBytes: size %d out of range", n)
		}
		b := make([]byte, n)
		rand.Read(b)
		return x.c.ArrayBuffer(b)
	}
}
