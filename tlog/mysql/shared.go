package mysql

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/mcpres/mcpres/tlog"
)

// Several processes serve one database (frontends behind a load balancer,
// and any 'log add --mysql'): Tessera's driver sequences in transactions
// on the TreeState row, so they append to one log; what mcpres adds is
// shared through the database too. The deduplication index claims each
// entry before it is appended (tlog.SharedDedupIndex), and each witnessing
// round runs under a named lock (tlog.WitnessRounds). MySQL named locks
// (GET_LOCK) belong to a connection: the server releases them when the
// connection ends, also when its process is killed.

// ownerLockPrefix starts the named lock each process holds while its
// deduplication index is open; its claims carry the rest of the name.
const ownerLockPrefix = "mcpres-frontend-"

// maxClaimAge is how long a claim may stay unresolved while its owner
// lives before another process takes it over: far longer than any append
// takes (a submission waits at most 30 s).
const maxClaimAge = 5 * time.Minute

// ownStaleClaimAge is how old a claim of this process that none of its
// appends holds must be before this process takes it over: its append
// failed with the database unreachable, perhaps after Tessera sequenced
// the entry, which it then integrates within a second or two of the
// database being back; the takeover indexes what the log holds first, so
// waiting this long keeps such an entry from being appended twice.
const ownStaleClaimAge = 10 * time.Second

// ownerKeepalive is how often the owner connection is checked (so that no
// idle timeout ends it) and its lock taken again if it was lost.
const ownerKeepalive = 30 * time.Second

var (
	_ tlog.SharedDedupIndex = (*dedup)(nil)
	_ tlog.WitnessRounds    = (*Storage)(nil)
)

// dedup is the database's deduplication index, shared by every process
// that opens it.
type dedup struct {
	db    *sql.DB
	owner string // 32 hex digits
	stop  chan struct{}
	done  chan struct{}

	mu   sync.Mutex
	conn *sql.Conn // holds ownerLockPrefix+owner

	// claimsMu guards claims: the hashes this process claimed and is
	// appending, from Claim until Unclaim or Put. A claim row of this
	// owner that is not among them was left by a release that failed
	// (the database was unreachable): no append of this process holds it.
	claimsMu sync.Mutex
	claims   map[string]bool
}

// track records that this process is claiming h; false if it is already.
func (d *dedup) track(h []byte) bool {
	d.claimsMu.Lock()
	defer d.claimsMu.Unlock()
	if d.claims[string(h)] {
		return false
	}
	d.claims[string(h)] = true
	return true
}

// untrack forgets h: its claim is resolved, or was released.
func (d *dedup) untrack(hs ...[]byte) {
	d.claimsMu.Lock()
	defer d.claimsMu.Unlock()
	for _, h := range hs {
		delete(d.claims, string(h))
	}
}

// OpenDedup returns the deduplication index in the database. Several
// processes may share it: Put is one transaction on the index state row,
// and entries are claimed before they are appended. The index holds a
// connection with this process's named lock until Close.
func (s *Storage) OpenDedup(ctx context.Context) (tlog.DedupIndex, error) {
	var b [16]byte
	rand.Read(b[:])
	d := &dedup{db: s.db, owner: hex.EncodeToString(b[:]), stop: make(chan struct{}), done: make(chan struct{}), claims: map[string]bool{}}
	if err := d.lock(ctx); err != nil {
		return nil, fmt.Errorf("the deduplication index: taking this process's lock: %w", err)
	}
	go d.keepalive()
	return d, nil
}

// lock opens the owner connection and takes the owner lock on it.
func (d *dedup) lock(ctx context.Context) error {
	conn, err := d.db.Conn(ctx)
	if err != nil {
		return err
	}
	var got sql.NullInt64
	if err := conn.QueryRowContext(ctx, "SELECT GET_LOCK(?, 0)", ownerLockPrefix+d.owner).Scan(&got); err != nil {
		conn.Close()
		return err
	}
	if !got.Valid || got.Int64 != 1 {
		conn.Close()
		return errors.New("the lock is held") // a random name: never
	}
	d.mu.Lock()
	d.conn = conn
	d.mu.Unlock()
	return nil
}

// keepalive checks the owner connection every ownerKeepalive, and takes
// the lock again on a new connection when it was lost. While it is lost,
// other processes take this process's claims for abandoned.
func (d *dedup) keepalive() {
	defer close(d.done)
	t := time.NewTicker(ownerKeepalive)
	defer t.Stop()
	for {
		select {
		case <-d.stop:
			return
		case <-t.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), ownerKeepalive)
		d.mu.Lock()
		conn := d.conn
		d.mu.Unlock()
		var mine sql.NullInt64
		err := conn.QueryRowContext(ctx, "SELECT IS_USED_LOCK(?) = CONNECTION_ID()", ownerLockPrefix+d.owner).Scan(&mine)
		if err != nil || !mine.Valid || mine.Int64 != 1 {
			conn.Close()
			_ = d.lock(ctx)
		}
		cancel()
	}
}

// Close releases the owner lock and its connection.
func (d *dedup) Close() error {
	close(d.stop)
	<-d.done
	d.mu.Lock()
	defer d.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err := d.conn.ExecContext(ctx, "DO RELEASE_LOCK(?)", ownerLockPrefix+d.owner)
	if cerr := d.conn.Close(); err == nil {
		err = cerr
	}
	return err
}

func (d *dedup) Lookup(ctx context.Context, h []byte) (uint64, bool, error) {
	var idx uint64
	err := d.db.QueryRowContext(ctx, "SELECT `idx` FROM `mcpresDedup` WHERE `h` = ?", h).Scan(&idx)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, err
	}
	return idx, true, nil
}

func (d *dedup) Next(ctx context.Context) (uint64, error) {
	var next uint64
	err := d.db.QueryRowContext(ctx, "SELECT `next` FROM `mcpresDedupState` WHERE `id` = 0").Scan(&next)
	return next, err
}

// Put records the hashes and deletes their claims, in one transaction on
// the index state row.
func (d *dedup) Put(ctx context.Context, from uint64, hashes [][]byte) error {
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var next uint64
	if err := tx.QueryRowContext(ctx, "SELECT `next` FROM `mcpresDedupState` WHERE `id` = 0 FOR UPDATE").Scan(&next); err != nil {
		return err
	}
	if next != from {
		return fmt.Errorf("%w: it is at %d, not %d", tlog.ErrIndexMoved, next, from)
	}
	if len(hashes) > 0 {
		q := "INSERT IGNORE INTO `mcpresDedup` (`h`, `idx`) VALUES " + strings.TrimSuffix(strings.Repeat("(?, ?), ", len(hashes)), ", ")
		args := make([]any, 0, 2*len(hashes))
		for i, h := range hashes {
			args = append(args, h, from+uint64(i))
		}
		if _, err := tx.ExecContext(ctx, q, args...); err != nil {
			return err
		}
		q = "DELETE FROM `mcpresClaim` WHERE `h` IN (" + strings.TrimSuffix(strings.Repeat("?, ", len(hashes)), ", ") + ")"
		args = args[:0]
		for _, h := range hashes {
			args = append(args, h)
		}
		if _, err := tx.ExecContext(ctx, q, args...); err != nil {
			return err
		}
	}
	if _, err := tx.ExecContext(ctx, "UPDATE `mcpresDedupState` SET `next` = ? WHERE `id` = 0", from+uint64(len(hashes))); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	d.untrack(hashes...)
	return nil
}

// Claim claims h for this process unless the index records it
// (tlog.SharedDedupIndex): a new claim, or one taken over from an owner
// whose lock is free (its process is gone) or that has held it longer
// than maxClaimAge. A new entry costs one statement: the claim is inserted
// only where mcpresDedup has no row for h, in one INSERT … SELECT (whose
// read of mcpresDedup locks, so it is ordered with Put's transaction).
// A claim of this process is held while one of its appends holds it;
// one that none does (its release failed: the database was unreachable,
// or crashed, when it was made or released) is taken over once it is
// ownStaleClaimAge old, so that the entry is not refused until the
// process restarts.
func (d *dedup) Claim(ctx context.Context, h []byte) (tlog.Claim, uint64, error) {
	for range 3 {
		if !d.track(h) {
			return d.claimedHere(ctx, h)
		}
		n, err := d.insertClaim(ctx, h)
		if err != nil {
			d.untrack(h)
			return 0, 0, err
		}
		if n == 1 {
			return tlog.ClaimNew, 0, nil
		}
		d.untrack(h)
		idx, ok, err := d.Lookup(ctx, h)
		if err != nil {
			return 0, 0, err
		}
		if ok {
			return tlog.ClaimIndexed, idx, nil
		}
		var owner string
		var abandoned, settled bool
		err = d.db.QueryRowContext(ctx, "SELECT `owner`, `at` < NOW() - INTERVAL ? SECOND OR IS_USED_LOCK(CONCAT(?, `owner`)) IS NULL, `at` < NOW() - INTERVAL ? SECOND FROM `mcpresClaim` WHERE `h` = ?",
			int64(maxClaimAge/time.Second), ownerLockPrefix, int64(ownStaleClaimAge/time.Second), h).Scan(&owner, &abandoned, &settled)
		if errors.Is(err, sql.ErrNoRows) {
			continue // resolved meanwhile: again
		}
		if err != nil {
			return 0, 0, err
		}
		if (owner != d.owner && !abandoned) || (owner == d.owner && !settled) {
			return tlog.ClaimHeld, 0, nil
		}
		if !d.track(h) {
			return d.claimedHere(ctx, h)
		}
		if owner == d.owner {
			// Left by a release that failed: this process's again.
			if _, err := d.db.ExecContext(ctx, "UPDATE `mcpresClaim` SET `at` = CURRENT_TIMESTAMP WHERE `h` = ? AND `owner` = ?", h, d.owner); err != nil {
				d.untrack(h)
				return 0, 0, err
			}
			return tlog.ClaimTakenOver, 0, nil
		}
		res, err := d.db.ExecContext(ctx, "UPDATE `mcpresClaim` SET `owner` = ?, `at` = CURRENT_TIMESTAMP WHERE `h` = ? AND `owner` = ?", d.owner, h, owner)
		if err != nil {
			d.untrack(h)
			return 0, 0, err
		}
		if n, err := res.RowsAffected(); err != nil {
			d.untrack(h)
			return 0, 0, err
		} else if n == 1 {
			return tlog.ClaimTakenOver, 0, nil
		}
		d.untrack(h)
		// Another process took it over first, or it was resolved: again.
	}
	return tlog.ClaimHeld, 0, nil
}

// claimedHere is Claim's answer for h, which this process claimed: held
// while it is appending it, unless the index records it already (its
// claim was resolved by a Put whose end this process did not see).
func (d *dedup) claimedHere(ctx context.Context, h []byte) (tlog.Claim, uint64, error) {
	idx, ok, err := d.Lookup(ctx, h)
	switch {
	case err != nil:
		return 0, 0, err
	case ok:
		d.untrack(h)
		return tlog.ClaimIndexed, idx, nil
	}
	return tlog.ClaimHeld, 0, nil
}

// insertClaim inserts this process's claim of h unless a claim of h or
// an index row for h exists, and returns the rows inserted. A deadlock
// with Put's transaction (which InnoDB resolves by rolling one back) is
// retried.
func (d *dedup) insertClaim(ctx context.Context, h []byte) (int64, error) {
	for attempt := 0; ; attempt++ {
		res, err := d.db.ExecContext(ctx, "INSERT IGNORE INTO `mcpresClaim` (`h`, `owner`) SELECT ?, ? FROM DUAL WHERE NOT EXISTS (SELECT 1 FROM `mcpresDedup` WHERE `h` = ?)", h, d.owner, h)
		var me *mysql.MySQLError
		if errors.As(err, &me) && (me.Number == errDeadlock || me.Number == errLockWaitTimeout) && attempt < 3 {
			continue
		}
		if err != nil {
			return 0, err
		}
		return res.RowsAffected()
	}
}

// MySQL error numbers a claim retries.
const (
	errLockWaitTimeout = 1205
	errDeadlock        = 1213
)

// Unclaim deletes this process's claim of h. When that fails, the claim
// is left in the database, and Claim takes it over.
func (d *dedup) Unclaim(ctx context.Context, h []byte) error {
	d.untrack(h)
	_, err := d.db.ExecContext(ctx, "DELETE FROM `mcpresClaim` WHERE `h` = ? AND `owner` = ?", h, d.owner)
	return err
}

// witnessLock is the name of the lock witnessing rounds run under: one
// per database, so two logs on one server do not wait for each other.
func (s *Storage) witnessLock() string {
	sum := sha256.Sum256([]byte(s.dbName))
	return "mcpres-witness-" + hex.EncodeToString(sum[:16])
}

// WitnessRound runs round under the database's witnessing lock, unless a
// round that witnessed a checkpoint of at least size already ran in any
// process serving the database (tlog.WitnessRounds). It waits at most wait
// for another process's round to end.
func (s *Storage) WitnessRound(ctx context.Context, size uint64, wait time.Duration, round func(context.Context) (uint64, error)) (bool, error) {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return false, err
	}
	defer conn.Close()
	name := s.witnessLock()
	var got sql.NullInt64
	if err := conn.QueryRowContext(ctx, "SELECT GET_LOCK(?, ?)", name, int64(math.Ceil(wait.Seconds()))).Scan(&got); err != nil {
		return false, fmt.Errorf("taking the witnessing lock: %w", err)
	}
	if !got.Valid || got.Int64 != 1 {
		return false, fmt.Errorf("another process's witnessing round held the lock for %v", wait)
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), "DO RELEASE_LOCK(?)", name)
	var done uint64
	err = conn.QueryRowContext(ctx, "SELECT `size` FROM `mcpresWitnessed` WHERE `id` = 0").Scan(&done)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return false, err
	}
	if done >= size {
		return false, nil
	}
	witnessed, rerr := round(ctx)
	if _, err := conn.ExecContext(context.WithoutCancel(ctx), "INSERT INTO `mcpresWitnessed` (`id`, `size`) VALUES (0, ?) ON DUPLICATE KEY UPDATE `size` = GREATEST(`size`, VALUES(`size`))", max(witnessed, size)); err != nil && rerr == nil {
		rerr = fmt.Errorf("recording the round: %w", err)
	}
	return true, rerr
}
