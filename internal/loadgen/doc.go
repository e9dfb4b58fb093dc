// Package loadgen is the load generator (the driver): it starts one worker
// per client, each on its own connection, paces them (closed loop, or open
// loop from one shared Poisson schedule), times every transaction into the
// histogram registry, retries serialization failures, reconnects lost
// connections, splits the run into warm-up and measurement, and hands an
// interval to its observer on every tick. It never knows SQL: workloads do.
package loadgen
