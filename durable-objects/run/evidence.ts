import type { Config } from '../../src/config';
import { archiveInfo, archiveReplaySource, type ArchiveBindings } from '../../src/storage/archives';
import { evidenceBook, type EvidenceBook } from '../../src/engine/attribution/attribute';
import { stepAttribution, type StepAttribution } from '../../src/engine/attribution/step-attribution';
import type { RunOptions } from '../../src/engine/options';
import { OPEN_OWNER } from '../../src/storage/run-index';
import { redact } from '../../src/engine/redact';
import type { StepScope } from '../../src/engine/context';
import { createServices } from '../../src/engine/services';
import type { RunRequest } from '../../src/engine/types';
import type { VerdictStore } from '../../src/engine/attribution/support-check';
import {
  answerFrom,
  encodeArchive,
  recordingEvidence,
  recordingKg,
  replayingEvidence,
  replayingKg,
  requestKey,
  sha256Hex,
  type RecordedRequest,
  type EvidenceRecord,
  type ReplaySource,
} from '../../src/evidence/recording';
import { PagePrefetch, prefetching } from '../../src/evidence/prefetch';
import type { KnowledgeApi } from '../../src/evidence/crag/types';
import type { Evidence } from '../../src/evidence/types';
import { addPrefetch } from '../../src/engine/usage';
import type { RunMeta, RunStore } from '../run-store';

/** The archive a run replays: `options.evidence.replay`, else the deploy-wide EVIDENCE_REPLAY. */
export const replayArchiveOf = (options: Pick<RunOptions, 'evidence'> | undefined, config: Config): string | undefined =>
  options?.evidence?.replay ?? (config.EVIDENCE_REPLAY || undefined);

/**
 * Everything the run received from outside (evidence and CRAG KG calls): recorded into the run's store, served from an
 * uploaded archive when the run replays one, and exported again as an archive (docs/ARCHIVE.md).
 */
export class RunEvidence {
  /** Pages fetched ahead of a read, kept while this object lives (src/evidence/prefetch.ts). */
  private readonly prefetched = new PagePrefetch();
  /** Records stored by this instance: the book of the run's evidence is read again only when it changed. */
  private stored = 0;
  /** The archive a replaying run reads from, looked up once per instance. */
  private replay: Promise<ReplaySource | null> | undefined;

  constructor(
    private readonly store: RunStore,
    private readonly env: Env,
  ) {}

  /** GET /v1/runs/{id}/evidence: every request → response the run received, as a JSONL archive. */
  archive(meta: RunMeta): string {
    return encodeArchive(this.store.records(), { runs: [meta.runId] });
  }

  /** The run's evidence recording and its caller's context: what the answer's citations are checked against. */
  book(request: RunRequest): EvidenceBook {
    return evidenceBook(this.store.records(), request.context, request.question);
  }

  /** Attribution against this run's evidence, for a step or for an ending's answer (src/engine/attribution). */
  attribution(request: RunRequest): StepAttribution {
    return stepAttribution(() => this.book(request), () => this.stored);
  }

  /**
   * The run's services with its evidence and its CRAG KG calls recorded, and served from the archive when the run
   * replays one, for the run in `scope` (a replay's misses and the prefetches join its usage). The key of each record
   * joins `recorded`, so a tool call can say which records it produced. A search starts fetching its top page in the
   * background (not in a replay, which has every page at hand); `deadline` is the run's wall time.
   */
  services(config: Config, scope: StepScope, replay: ReplaySource | undefined, recorded: string[], deadline?: number) {
    const { usage } = scope;
    const base = createServices(config, this.env as never, scope);
    const onMiss = () => {
      usage.replayMisses = (usage.replayMisses ?? 0) + 1;
    };
    const keep = (r: EvidenceRecord) => this.keep(r, config, recorded);
    let evidence: Evidence | undefined;
    let kg: KnowledgeApi | undefined;
    const verifyRequest = (pair: string): RecordedRequest => ({ source: 'verify', pair });
    // Support verdicts (options.supportCheck: "model") are kept beside the evidence; a replay reads them from the archive.
    const verdicts: VerdictStore = {
      ...(replay ? { replayed: (pair: string) => answerFrom(replay, verifyRequest(pair), onMiss).catch(() => null) } : {}),
      record: (pair, body) => keep({ key: requestKey(verifyRequest(pair)), request: verifyRequest(pair), response: { body } }),
    };
    return {
      ...base,
      evidence: () =>
        (evidence ??= recordingEvidence(
          replay
            ? replayingEvidence(replay, onMiss)
            : prefetching(base.evidence(), this.prefetched, { deadline, onStart: () => addPrefetch(usage, false), onHit: () => addPrefetch(usage, true) }),
          keep,
        )),
      kg: () => (kg ??= recordingKg(replay ? replayingKg(replay, onMiss) : base.kg(), keep)),
      verdicts: () => verdicts,
    };
  }

  /**
   * The uploaded archive a replaying run reads from, record by record as the run asks (never loaded whole); null
   * when no archive has that id or it belongs to another key than the run's. The API refuses both before a run
   * starts; the deploy's own EVIDENCE_REPLAY is the operator's and open to every run.
   */
  loadReplay(meta: RunMeta, config: Config): Promise<ReplaySource | null> {
    // A failed look-up (storage unavailable) is asked again at the next step.
    this.replay ??= this.findReplay(meta, config).catch((err: unknown) => {
      this.replay = undefined;
      throw err;
    });
    return this.replay;
  }

  private async findReplay(meta: RunMeta, config: Config): Promise<ReplaySource | null> {
    const archiveId = meta.replay!.archiveId;
    const env = this.env as unknown as ArchiveBindings;
    const info = await archiveInfo(env, archiveId);
    const owner = meta.owner ?? OPEN_OWNER;
    if (!info || (owner !== OPEN_OWNER && info.owner !== owner && archiveId !== config.EVIDENCE_REPLAY)) return null;
    return archiveReplaySource(env, archiveId);
  }

  /** Stores one record, scrubbed of secrets; its body is addressed by its SHA-256. */
  private async keep(record: EvidenceRecord, config: Config, recorded: string[]): Promise<void> {
    const scrub = (s: string) => redact(s, config.secrets);
    recorded.push(scrub(record.key));
    const request = scrub(JSON.stringify(record.request));
    const response = record.response;
    if ('body' in response) {
      const body = scrub(JSON.stringify(response.body));
      this.store.record(scrub(record.key), request, { hash: await sha256Hex(body), body });
    } else this.store.record(scrub(record.key), request, { error: scrub(JSON.stringify(response.error)) });
    this.stored++;
  }
}
