package keyref

import (
	"crypto"
	"crypto/ed25519"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/mcpres/mcpres/ed25519strict"
	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"
)

// agentTimeout bounds one exchange with the agent (an agent that asks
// its user to confirm a signature answers within it, or the signature
// fails as unavailable).
const agentTimeout = 30 * time.Second

// agentSigner signs through an ssh-agent. The connection is kept and
// made again when an exchange fails (the agent was restarted).
type agentSigner struct {
	sock string
	key  ssh.PublicKey
	pub  ed25519.PublicKey

	mu     sync.Mutex
	conn   net.Conn
	client agent.ExtendedAgent // one client per connection: a second one on it is not answered
}

func dialAgent(sock string) (net.Conn, agent.ExtendedAgent, error) {
	conn, err := net.DialTimeout("unix", sock, agentTimeout)
	if err != nil {
		return nil, nil, err
	}
	conn.SetDeadline(time.Now().Add(agentTimeout))
	return conn, agent.NewClient(conn), nil
}

func openAgent(r *Ref, o *Options) (*Key, error) {
	sock, ok := o.lookupEnv(EnvSSHAuthSock)
	if !ok || sock == "" {
		return nil, fmt.Errorf("%w: $%s is not set (start one with eval $(ssh-agent) and add the key with ssh-add)", ErrAgentUnreachable, EnvSSHAuthSock)
	}
	conn, ag, err := dialAgent(sock)
	if err != nil {
		return nil, fmt.Errorf("%w: $%s=%s: %v", ErrAgentUnreachable, EnvSSHAuthSock, sock, err)
	}
	keys, err := ag.List()
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("%w: listing the keys of the agent at %s: %v", ErrAgentUnreachable, sock, err)
	}
	var held []string
	for _, k := range keys {
		fp := ssh.FingerprintSHA256(k)
		if fp != r.Fingerprint {
			held = append(held, fp+" ("+k.Type()+")")
			continue
		}
		pub, err := agentEd25519(k)
		if err != nil {
			conn.Close()
			return nil, fmt.Errorf("%w: the agent's key %s: %v", ErrKeyType, fp, err)
		}
		s := &agentSigner{sock: sock, key: k, pub: pub, conn: conn, client: ag}
		return &Key{ref: r, pub: pub, signer: s, closer: s}, nil
	}
	conn.Close()
	list := "it holds no key"
	if len(held) > 0 {
		list = "it holds " + strings.Join(held, ", ")
	}
	return nil, fmt.Errorf("%w: the agent at %s has no key %s; %s (ssh-add -l lists them)", ErrNotInAgent, sock, r.Fingerprint, list)
}

// agentEd25519 returns the Ed25519 public key of an agent key, which
// must be a plain ssh-ed25519 key (a FIDO sk-ssh-ed25519 key signs
// something else than the message).
func agentEd25519(k *agent.Key) (ed25519.PublicKey, error) {
	if k.Type() != ssh.KeyAlgoED25519 {
		return nil, fmt.Errorf("it is %s, only ssh-ed25519 keys sign MCP-RES envelopes and notes", k.Type())
	}
	pk, err := ssh.ParsePublicKey(k.Marshal())
	if err != nil {
		return nil, err
	}
	cpk, ok := pk.(ssh.CryptoPublicKey)
	if !ok {
		return nil, fmt.Errorf("it has no Ed25519 public key")
	}
	pub, ok := cpk.CryptoPublicKey().(ed25519.PublicKey)
	if !ok {
		return nil, fmt.Errorf("it has no Ed25519 public key")
	}
	if err := ed25519strict.CheckPublicKey(pub); err != nil {
		return nil, err
	}
	return pub, nil
}

func (s *agentSigner) Public() crypto.PublicKey { return s.pub }

// Sign asks the agent for a signature of msg, once more on a new
// connection if the kept one fails.
func (s *agentSigner) Sign(_ io.Reader, msg []byte, _ crypto.SignerOpts) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var last error
	for attempt := 0; attempt < 2; attempt++ {
		if s.conn == nil {
			conn, client, err := dialAgent(s.sock)
			if err != nil {
				last = err
				continue
			}
			s.conn, s.client = conn, client
		}
		s.conn.SetDeadline(time.Now().Add(agentTimeout))
		sig, err := s.client.Sign(s.key, msg)
		if err == nil {
			if sig.Format != ssh.KeyAlgoED25519 || len(sig.Blob) != ed25519.SignatureSize {
				return nil, fmt.Errorf("%w: the agent answered a %s signature of %d bytes, want ssh-ed25519", ErrUnavailable, sig.Format, len(sig.Blob))
			}
			return sig.Blob, nil
		}
		last = err
		s.conn.Close()
		s.conn, s.client = nil, nil
	}
	return nil, fmt.Errorf("%w: ssh-agent at %s, key %s: %v", ErrUnavailable, s.sock, ssh.FingerprintSHA256(s.key), last)
}

func (s *agentSigner) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conn == nil {
		return nil
	}
	err := s.conn.Close()
	s.conn, s.client = nil, nil
	return err
}
