package datagen

import (
	crand "crypto/rand"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/google/uuid"
)

// Key generators for the inserts workload. Each generator belongs to one
// goroutine (one client): it is not safe for concurrent use, but generators
// share no state, so one generator per goroutine needs no locking. Keys from
// different generators do not collide as long as they are given different
// random streams (NewRand(seed, client)) or a nil *rand.Rand, which selects
// crypto/rand.

// Int64Keys is implemented by the generators of integer keys.
type Int64Keys interface{ Next() int64 }

// UUIDKeys is implemented by the generators of UUID keys.
type UUIDKeys interface{ Next() uuid.UUID }

var (
	_ UUIDKeys  = (*UUIDv4Gen)(nil)
	_ UUIDKeys  = (*UUIDv7Gen)(nil)
	_ Int64Keys = (*PartitionedGen)(nil)
	_ Int64Keys = (*RandomBigintGen)(nil)
)

func randUint64(r *rand.Rand) uint64 {
	if r != nil {
		return r.Uint64()
	}
	var b [8]byte
	_, _ = crand.Read(b[:]) // never fails since Go 1.24
	return binary.LittleEndian.Uint64(b[:])
}

// UUIDv4Gen generates random (version 4) UUIDs.
type UUIDv4Gen struct{ r *rand.Rand }

// NewUUIDv4 returns a generator drawing from r: deterministic for a given
// seed. A nil r draws from crypto/rand.
func NewUUIDv4(r *rand.Rand) *UUIDv4Gen { return &UUIDv4Gen{r: r} }

// Next returns a new UUID.
func (g *UUIDv4Gen) Next() uuid.UUID {
	var u uuid.UUID
	if g.r == nil {
		_, _ = crand.Read(u[:])
	} else {
		binary.LittleEndian.PutUint64(u[:8], g.r.Uint64())
		binary.LittleEndian.PutUint64(u[8:], g.r.Uint64())
	}
	u[6] = u[6]&0x0f | 0x40 // version 4
	u[8] = u[8]&0x3f | 0x80 // RFC 9562 variant
	return u
}

// UUIDv7Gen generates time-ordered (version 7, RFC 9562) UUIDs: a 48-bit Unix
// millisecond timestamp, then a 42-bit counter (the 12 rand_a bits and the
// top 30 bits of rand_b, RFC 9562 section 6.2 method 1), then 32 random bits.
// The counter starts at a random 41-bit value in each new millisecond and is
// incremented within one, so the UUIDs of one generator are strictly
// increasing in byte order even within a millisecond or if the clock goes
// back; if the counter overflows, the generator moves to the next
// millisecond early.
type UUIDv7Gen struct {
	r      *rand.Rand
	now    func() time.Time
	lastMs int64
	ctr    uint64
}

const (
	v7CounterBits = 42
	v7LowBits     = 30 // counter bits stored in rand_b
)

// NewUUIDv7 returns a generator drawing its random bits from r (nil means
// crypto/rand) and its time from now (nil means time.Now).
func NewUUIDv7(r *rand.Rand, now func() time.Time) *UUIDv7Gen {
	if now == nil {
		now = time.Now
	}
	return &UUIDv7Gen{r: r, now: now, lastMs: math.MinInt64}
}

// Next returns a UUID greater, in byte order, than every UUID this generator
// returned before.
func (g *UUIDv7Gen) Next() uuid.UUID {
	ms := g.now().UnixMilli()
	switch {
	case ms > g.lastMs:
		g.lastMs = ms
		g.ctr = randUint64(g.r) >> (64 - v7CounterBits + 1)
	case g.ctr+1 < 1<<v7CounterBits:
		g.ctr++
	default:
		g.lastMs++
		g.ctr = randUint64(g.r) >> (64 - v7CounterBits + 1)
	}
	var u uuid.UUID
	ts := uint64(g.lastMs) & (1<<48 - 1)
	u[0], u[1], u[2] = byte(ts>>40), byte(ts>>32), byte(ts>>24)
	u[3], u[4], u[5] = byte(ts>>16), byte(ts>>8), byte(ts)
	hi := g.ctr >> v7LowBits // 12 bits: rand_a
	u[6], u[7] = 0x70|byte(hi>>8), byte(hi)
	lo := g.ctr & (1<<v7LowBits - 1) // 30 bits: top of rand_b
	u[8], u[9], u[10], u[11] = 0x80|byte(lo>>24), byte(lo>>16), byte(lo>>8), byte(lo)
	binary.BigEndian.PutUint32(u[12:], uint32(randUint64(g.r)))
	return u
}

// PartitionStride separates the key ranges of [PartitionedGen] clients.
const PartitionStride = 10_000_000_000

// MaxPartitionClient is the largest client id whose partition fits an int64.
const MaxPartitionClient = math.MaxInt64/PartitionStride - 1

// PartitionedGen generates clientID*PartitionStride + n for n = 1, 2, 3, ...:
// each client inserts increasing keys in its own range, so no two clients
// touch the same index page.
type PartitionedGen struct {
	client, base, n int64
}

// NewPartitioned returns the generator of client clientID, 0 <= clientID <=
// MaxPartitionClient.
func NewPartitioned(clientID int64) (*PartitionedGen, error) {
	if clientID < 0 || clientID > MaxPartitionClient {
		return nil, fmt.Errorf("partitioned keys: client id %d outside [0, %d]", clientID, int64(MaxPartitionClient))
	}
	return &PartitionedGen{client: clientID, base: clientID * PartitionStride}, nil
}

// NewPartitionedAfter returns the generator of client clientID that carries
// on after key last, such as the largest key of the client's range already
// stored, so that a new run does not repeat an earlier run's keys. A last
// outside the client's range is ignored: the generator starts at the
// beginning of the range.
func NewPartitionedAfter(clientID, last int64) (*PartitionedGen, error) {
	g, err := NewPartitioned(clientID)
	if err != nil {
		return nil, err
	}
	if last > g.base && last-g.base < PartitionStride {
		g.n = last - g.base
	}
	return g, nil
}

// Next returns the client's next key. It panics after PartitionStride-1 keys,
// when the next key would fall in another client's range.
func (g *PartitionedGen) Next() int64 {
	if g.n == PartitionStride-1 {
		panic(fmt.Sprintf("partitioned keys: client %d used all %d keys of its range", g.client, PartitionStride-1))
	}
	g.n++
	return g.base + g.n
}

// RandomBigintGen generates uniformly random positive int64 keys in
// [1, math.MaxInt64].
type RandomBigintGen struct{ r *rand.Rand }

// NewRandomBigint returns a generator drawing from r (nil means crypto/rand).
func NewRandomBigint(r *rand.Rand) *RandomBigintGen { return &RandomBigintGen{r: r} }

// Next returns a random positive key.
func (g *RandomBigintGen) Next() int64 {
	for {
		if v := int64(randUint64(g.r) >> 1); v != 0 {
			return v
		}
	}
}
