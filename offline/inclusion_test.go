package offline_test

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"testing"

	"github.com/mcpres/mcpres/offline"
	"github.com/transparency-dev/merkle/rfc6962"
)

// The inclusion test data of github.com/transparency-dev/merkle v0.0.2,
// proof/verify_test.go (inclusionProofs, roots, leaves, corruptInclusionProof,
// TestVerifyInclusion, TestVerifyInclusionSingleEntry), ported by reading
// the file and run through offline.VerifyInclusion: the happy paths verify
// and every probe that merkle expects to fail (its wantErr cases and
// corrupted proofs) fails here with an *offline.InclusionError.

func dh(h string, n int) []byte {
	b, err := hex.DecodeString(h)
	if err != nil || len(b) != n {
		panic(fmt.Sprintf("dh(%q, %d)", h, n))
	}
	return b
}

var (
	merkleSomeHash      = dh("abacaba000000000000000000000000000000000000000000060061e00123456", 32)
	merkleEmptyTreeHash = dh("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", 32)

	merkleInclusionProofs = []struct {
		leaf, size uint64
		proof      [][]byte
	}{
		{0, 0, nil},
		{1, 1, nil},
		{1, 8, [][]byte{
			dh("96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7", 32),
			dh("5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e", 32),
			dh("6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4", 32),
		}},
		{6, 8, [][]byte{
			dh("bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b", 32),
			dh("ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0", 32),
			dh("d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7", 32),
		}},
		{3, 3, [][]byte{
			dh("fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125", 32),
		}},
		{2, 5, [][]byte{
			dh("6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d", 32),
			dh("5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e", 32),
			dh("bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b", 32),
		}},
	}

	merkleRoots = [][]byte{
		dh("6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d", 32),
		dh("fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125", 32),
		dh("aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77", 32),
		dh("d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7", 32),
		dh("4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4", 32),
		dh("76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef", 32),
		dh("ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c", 32),
		dh("5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328", 32),
	}

	merkleLeaves = [][]byte{
		dh("", 0), dh("00", 1), dh("10", 1), dh("2021", 2), dh("3031", 2),
		dh("40414243", 4), dh("5051525354555657", 8), dh("606162636465666768696a6b6c6d6e6f", 16),
	}
)

type inclusionProbe struct {
	index, size    uint64
	root, leafHash []byte
	proof          [][]byte
	desc           string
}

// corruptInclusionProof is merkle's, unchanged in substance.
func corruptInclusionProof(index, size uint64, proof [][]byte, root, leafHash []byte) []inclusionProbe {
	extend := func(p [][]byte, hs ...[]byte) [][]byte { return append(append([][]byte{}, p...), hs...) }
	prepend := func(p [][]byte, hs ...[]byte) [][]byte { return append(append([][]byte{}, hs...), p...) }
	ret := []inclusionProbe{
		{index - 1, size, root, leafHash, proof, "leafIndex - 1"},
		{index + 1, size, root, leafHash, proof, "leafIndex + 1"},
		{index ^ 2, size, root, leafHash, proof, "leafIndex ^ 2"},
		{index, size * 2, root, leafHash, proof, "treeSize * 2"},
		{index, size / 2, root, leafHash, proof, "treeSize / 2"},
		{index, size, root, []byte("WrongLeaf"), proof, "wrong leaf"},
		{index, size, merkleEmptyTreeHash, leafHash, proof, "empty root"},
		{index, size, merkleSomeHash, leafHash, proof, "random root"},
		{index, size, root, leafHash, extend(proof, []byte{}), "trailing garbage"},
		{index, size, root, leafHash, extend(proof, root), "trailing root"},
		{index, size, root, leafHash, prepend(proof, []byte{}), "preceding garbage"},
		{index, size, root, leafHash, prepend(proof, root), "preceding root"},
	}
	for i := range proof {
		wrong := prepend(proof)
		wrong[i] = bytes.Clone(wrong[i])
		wrong[i][0] ^= 8
		ret = append(ret, inclusionProbe{index, size, root, leafHash, wrong, fmt.Sprintf("modified proof[%d] bit 3", i)})
	}
	if n := len(proof); n > 0 {
		ret = append(ret, inclusionProbe{index, size, root, leafHash, proof[:n-1], "removed component"})
	}
	if len(proof) > 1 {
		ret = append(ret, inclusionProbe{index, size, root, leafHash, prepend(proof[1:], proof[0], merkleSomeHash), "inserted component"})
	}
	return ret
}

func wantInclusionError(t *testing.T, err error, desc string) {
	t.Helper()
	var ie *offline.InclusionError
	if !errors.As(err, &ie) {
		t.Errorf("%s: got %T %v, want an *offline.InclusionError", desc, err, err)
	}
}

func TestMerkleInclusionVectors(t *testing.T) {
	// TestVerifyInclusion's probes of invalid root or leaf hashes.
	for _, p := range []struct{ index, size uint64 }{{0, 0}, {0, 1}, {1, 0}, {2, 1}} {
		wantInclusionError(t, offline.VerifyInclusion(p.index, p.size, merkleSomeHash, nil, []byte{}), "empty root")
		wantInclusionError(t, offline.VerifyInclusion(p.index, p.size, []byte{}, nil, merkleEmptyTreeHash), "empty leaf")
		wantInclusionError(t, offline.VerifyInclusion(p.index, p.size, merkleSomeHash, nil, merkleEmptyTreeHash), "mismatch")
	}
	// Vector 0 ({0, 0}) is an invalid path in merkle's test too; 1..5 verify
	// and every corruption of them fails.
	for i := 1; i < len(merkleInclusionProofs); i++ {
		p := merkleInclusionProofs[i]
		t.Run(fmt.Sprintf("proof:%d", i), func(t *testing.T) {
			leafHash := rfc6962.DefaultHasher.HashLeaf(merkleLeaves[p.leaf-1])
			root := merkleRoots[p.size-1]
			if err := offline.VerifyInclusion(p.leaf-1, p.size, leafHash, p.proof, root); err != nil {
				t.Fatalf("happy path: %v", err)
			}
			for _, c := range corruptInclusionProof(p.leaf-1, p.size, p.proof, root, leafHash) {
				wantInclusionError(t, offline.VerifyInclusion(c.index, c.size, c.leafHash, c.proof, c.root), c.desc)
			}
		})
	}
	// TestVerifyInclusionSingleEntry: wantErr false, true, true, true.
	hash := rfc6962.DefaultHasher.HashLeaf([]byte("data"))
	for i, tc := range []struct {
		root, leaf []byte
		wantErr    bool
	}{
		{hash, hash, false},
		{hash, []byte{}, true},
		{[]byte{}, hash, true},
		{[]byte{}, []byte{}, true},
	} {
		err := offline.VerifyInclusion(0, 1, tc.leaf, [][]byte{}, tc.root)
		if tc.wantErr {
			wantInclusionError(t, err, fmt.Sprintf("single entry %d", i))
		} else if err != nil {
			t.Errorf("single entry %d: %v", i, err)
		}
	}
}
