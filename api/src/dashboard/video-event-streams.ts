// The open event streams of this API instance (GET /dashboard/api/{orgID}/events)
// and the one database connection that hears the video events for all of them
// (@kino/database listenForVideoEvents). The connection is opened with the first stream and closed
// with the last. If it is lost, every stream is ended: each browser reconnects by itself and reads
// the present again, so an event missed meanwhile costs nothing but that read.
import type { FastifyBaseLogger } from 'fastify';
import { listenForVideoEvents, type VideoEventAnnouncement, type VideoEventListener } from '@kino/database';

export interface VideoEventStream {
  orgId: string;
  send(announcement: VideoEventAnnouncement): void;
  end(): void;
}

export class VideoEventStreams {
  readonly #streams = new Set<VideoEventStream>();
  #listener: Promise<VideoEventListener> | undefined;

  private readonly databaseUrl: string;
  private readonly log: FastifyBaseLogger;
  constructor(databaseUrl: string, log: FastifyBaseLogger) {
    this.databaseUrl = databaseUrl;
    this.log = log;
  }

  /** Adds a stream once the events are heard; rejects when the database cannot be listened to. */
  async add(stream: VideoEventStream): Promise<void> {
    this.#listener ??= this.#listen();
    try {
      await this.#listener;
    } catch (error) {
      this.#listener = undefined;
      throw error;
    }
    this.#streams.add(stream);
  }

  remove(stream: VideoEventStream): void {
    this.#streams.delete(stream);
    if (this.#streams.size > 0 || !this.#listener) return;
    const listener = this.#listener;
    this.#listener = undefined;
    void listener.then((l) => l.close()).catch(() => undefined);
  }

  /** Ends every stream and stops listening (the API is closing). */
  async close(): Promise<void> {
    for (const stream of [...this.#streams]) stream.end();
    this.#streams.clear();
    const listener = this.#listener;
    this.#listener = undefined;
    await listener?.then((l) => l.close()).catch(() => undefined);
  }

  #listen(): Promise<VideoEventListener> {
    return listenForVideoEvents(
      this.databaseUrl,
      (announcement) => {
        for (const stream of this.#streams) {
          if (stream.orgId === announcement.orgId) stream.send(announcement);
        }
      },
      (error) => {
        this.log.warn({ err: error }, 'lost the video events connection; ending the event streams');
        this.#listener = undefined;
        for (const stream of [...this.#streams]) stream.end();
        this.#streams.clear();
      },
    );
  }
}
