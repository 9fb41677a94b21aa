package aws

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"

	sdkaws "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"
)

// probeRounds is how many races ProbeConditionalWrites runs.
const probeRounds = 3

// probePrefix is where the probe's objects go (deleted afterwards).
const probePrefix = ".mcpres/probe/"

// ErrNoConditionalWrites is matched by ProbeConditionalWrites's error when
// the object store does not enforce If-None-Match: * creates.
var ErrNoConditionalWrites = errors.New("the object store does not enforce conditional writes (If-None-Match: *): Tessera would corrupt the log silently under concurrency")

// ProbeConditionalWrites checks that the bucket's store enforces
// conditional creates, which Tessera's AWS driver relies on: it races two
// PUTs with If-None-Match: * of one new key, probeRounds times; exactly
// one must succeed, the other be refused as a failed precondition (412,
// or 409 for a conflicting concurrent write), and the object hold the
// winner's bytes. The objects are deleted afterwards.
func (s *Storage) ProbeConditionalWrites(ctx context.Context) error {
	for range probeRounds {
		if err := s.probeOnce(ctx); err != nil {
			return err
		}
	}
	return nil
}

func (s *Storage) probeOnce(ctx context.Context) error {
	var b [16]byte
	rand.Read(b[:])
	key := probePrefix + hex.EncodeToString(b[:])
	defer s.s3.DeleteObject(context.WithoutCancel(ctx), &s3.DeleteObjectInput{Bucket: sdkaws.String(s.cfg.Bucket), Key: sdkaws.String(key)})
	const n = 2
	errs := make([]error, n)
	bodies := make([]string, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		bodies[i] = fmt.Sprintf("mcpres conditional-write probe %s writer %d\n", key, i)
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			_, errs[i] = s.s3.PutObject(ctx, &s3.PutObjectInput{
				Bucket: sdkaws.String(s.cfg.Bucket), Key: sdkaws.String(key),
				Body: strings.NewReader(bodies[i]), IfNoneMatch: sdkaws.String("*"),
			})
		}()
	}
	close(start)
	wg.Wait()
	winner := -1
	for i, err := range errs {
		switch {
		case err == nil:
			if winner >= 0 {
				return fmt.Errorf("%s: %w (two racing creates of one key both succeeded)", s, ErrNoConditionalWrites)
			}
			winner = i
		case refusedPrecondition(err):
		default:
			return fmt.Errorf("%s: probing conditional writes: %w", s, err)
		}
	}
	if winner < 0 {
		return fmt.Errorf("%s: %w (both racing creates of a new key were refused)", s, ErrNoConditionalWrites)
	}
	got, err := s.get(ctx, key)
	if err != nil {
		return fmt.Errorf("%s: probing conditional writes: %w", s, err)
	}
	if string(got) != bodies[winner] {
		return fmt.Errorf("%s: %w (the object does not hold the bytes of the create that succeeded)", s, ErrNoConditionalWrites)
	}
	return nil
}

// refusedPrecondition reports whether err is a conditional write refused
// because the object exists (412) or a concurrent conditional write
// conflicted (409).
func refusedPrecondition(err error) bool {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		switch ae.ErrorCode() {
		case "PreconditionFailed", "ConditionalRequestConflict":
			return true
		}
	}
	return false
}
