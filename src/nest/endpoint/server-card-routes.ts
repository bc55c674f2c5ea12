import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { ApplicationConfig, HttpAdapterHost } from '@nestjs/core';
import type { IncomingMessage } from 'node:http';
import { isLoopbackHost } from '../../http/policy/bind-address.js';
import type { HostOriginPolicy } from '../../http/policy/host-origin-policy.js';
import type { Implementation } from '../../protocol/mcp-types.js';
import {
  catalogOf,
  MCP_CATALOG_PATH,
  SERVER_CARD_MEDIA_TYPE,
  serverCardOf,
} from '../../server/discovery/server-card.js';
import { joinPath } from '../join-path.js';
import { MCP_ENDPOINT_PATH, MCP_SERVER_CARD } from '../mcp.constants.js';
import { type PublicReply, sendPublicDocument } from './public-document.js';

/** What the routes publish of one server, decided from its options at start-up (`serverCardProvider`). */
export interface PublishedServerCard {
  /** Who the server is: the `serverInfo` of `server/discover`. */
  info: Implementation;
  /** The public URL the card names (`http.serverCard.url`, else `auth.resource`); else the endpoint as asked for. */
  url?: string;
  /** Whether the site's catalog lists the card (`http.catalog`). */
  catalog: boolean;
  /** The endpoint's Host allowlist: a card names only a Host the server answers to. */
  hosts: HostOriginPolicy;
}

type Request = IncomingMessage & { raw?: IncomingMessage };
type CardOf = (host: string) => { body: string; card: ReturnType<typeof serverCardOf>; url: string };

/** The servers of each HTTP framework instance that are listed in its catalog, and whether its route is there. */
const catalogs = new WeakMap<object, CardOf[]>();

/**
 * Serves the Server Card (SEP-2127) of one MCP server at `<endpoint>/server-card`, on by default for a server
 * without `auth` (`http.serverCard: false` turns it off); a server with `auth` is private, so its card is served
 * only when `http.serverCard` asks for it. Opt-in with `http.catalog`, it lists the server in the site's
 * `/.well-known/mcp/catalog.json`. Both are public documents a host fetches before it connects, from any
 * origin: no guard stands in front (routes go straight onto the framework, as the RFC 9728 metadata does),
 * CORS is `*`, and they are cached an hour. The routes see only what is published (`serverCardProvider` decides
 * it from the options): the `serverInfo` of `server/discover`, and a remote that is `http.serverCard.url`, else
 * the `auth.resource`, else the endpoint at the Host the request named, once the Host passes its allowlist.
 */
@Injectable()
export class ServerCardRoutes implements OnModuleInit {
  constructor(
    @Inject(MCP_SERVER_CARD) private readonly published: PublishedServerCard | null,
    @Inject(MCP_ENDPOINT_PATH) private readonly endpointPath: string,
    private readonly appConfig: ApplicationConfig,
    private readonly adapterHost: HttpAdapterHost,
  ) {}

  onModuleInit(): void {
    const adapter = this.adapterHost?.httpAdapter;
    if (!adapter || !this.published) return;
    const { info, url: fixed, catalog, hosts } = this.published;
    const path = joinPath(this.appConfig.getGlobalPrefix(), this.endpointPath);
    const cards = new Map<string, ReturnType<CardOf>>();
    const cardOf: CardOf = (host) => {
      const url = fixed ?? `${isLoopbackHost(hostnameOf(host)) ? 'http' : 'https'}://${host}${path}`;
      let entry = cards.get(url);
      if (!entry) {
        const card = serverCardOf(info, url);
        if (cards.size >= 16) cards.clear(); // one per name the server answers to: a few, never per request
        cards.set(url, (entry = { body: JSON.stringify(card), card, url: `${url}/server-card` }));
      }
      return entry;
    };
    const instance = adapter.getInstance() as object;
    adapter.get(`${path}/server-card`, (req: Request, res: PublicReply) => {
      const host = allowedHost(hosts, req);
      if (host === undefined) return refuse(res);
      sendPublicDocument(res, SERVER_CARD_MEDIA_TYPE, cardOf(host).body);
    });
    if (!catalog) return;
    const listed = catalogs.get(instance);
    if (listed) return void listed.push(cardOf);
    const servers: CardOf[] = [cardOf];
    catalogs.set(instance, servers);
    adapter.get(MCP_CATALOG_PATH, (req: Request, res: PublicReply) => {
      const host = allowedHost(hosts, req);
      if (host === undefined) return refuse(res);
      sendPublicDocument(
        res,
        'application/json',
        JSON.stringify(
          catalogOf(
            hostnameOf(host),
            servers.map((of) => of(host)),
          ),
        ),
      );
    });
  }
}

function allowedHost(hosts: HostOriginPolicy, req: Request): string | undefined {
  const host = (req.raw ?? req).headers.host;
  // Origin is not checked: the documents are public and meant to be read cross-origin.
  return host !== undefined && hosts.check(host, undefined) === null ? host : undefined;
}

function hostnameOf(host: string): string {
  return host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.replace(/:\d+$/, '');
}

function refuse(res: PublicReply): void {
  const body = JSON.stringify({ error: 'Forbidden: this Host is not one the server answers to' });
  (res.raw ?? res).writeHead(403, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  (res.raw ?? res).end(body);
}
