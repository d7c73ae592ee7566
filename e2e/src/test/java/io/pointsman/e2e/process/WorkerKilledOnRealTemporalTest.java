package io.pointsman.e2e.process;

/**
 * {@link WorkerKilledInCriticalSectionTest} with the real Temporal server (the CLI's dev server,
 * SQLite, POINTSMAN_TEMPORAL_BIN) instead of the SDK's test server: the worker process SIGKILLed at
 * each point of the critical section, and the one started after it finishing the switch (or, before
 * the journal, rolling it back), with the server's own task timeouts, retries and history in between.
 * The parent's setup starts its world on the real server for this class.
 */
class WorkerKilledOnRealTemporalTest extends WorkerKilledInCriticalSectionTest {}
