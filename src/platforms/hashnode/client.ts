import { PlatformError, type OperationContext } from '../platform.js';
import { hashnodeError } from './errors.js';

/** Hashnode's GraphQL client: the operations the adapter sends and the shapes of their answers. */

export const HASHNODE_GQL = 'https://gql.hashnode.com';
/** Posts read per page of a publication (Hashnode caps connections). */
const PAGE_SIZE = 20;
const MAX_PAGES = 5;

type Http = Pick<OperationContext, 'http'>;

export interface PostNode {
  id: string;
  url: string;
  title?: string;
  publishedAt?: string;
  content?: { markdown?: string };
  tags?: { id: string; name: string; slug: string }[] | null;
}

interface Connection<T> {
  edges: { node: T; cursor?: string }[];
  pageInfo?: { hasNextPage?: boolean; endCursor?: string | null };
}

export interface HashnodeUser {
  id: string;
  username: string;
  name?: string | null;
  profilePicture?: string | null;
}

const Q = {
  me: 'query Me { me { id username name profilePicture } }',
  publications: 'query MyPublications($first: Int!) { me { id publications(first: $first) { edges { node { id title url } } } } }',
  tag: 'query TagBySlug($slug: String!) { tag(slug: $slug) { id name slug } }',
  publish: 'mutation PublishPost($input: PublishPostInput!) { publishPost(input: $input) { post { id slug url title } } }',
  posts:
    'query PublicationPosts($id: ObjectId!, $first: Int!, $after: String) { publication(id: $id) { id posts(first: $first, after: $after) { edges { node { id url title publishedAt content { markdown } tags { id name slug } } } pageInfo { hasNextPage endCursor } } } }',
  post: 'query PostFigures($id: ID!) { post(id: $id) { id views reactionCount responseCount } }',
};

/** One GraphQL operation: its `data`, or the classified error (errors arrive inside HTTP 200 too). */
async function gql<T>(ctx: Http, token: string, query: string, variables: Record<string, unknown> = {}): Promise<T> {
  const operationName = /^(?:query|mutation)\s+(\w+)/.exec(query)?.[1];
  const res = await ctx.http.request({ method: 'POST', url: HASHNODE_GQL, headers: { authorization: token, 'content-type': 'application/json' }, body: { query, variables, operationName } });
  const err = hashnodeError(res);
  if (err) throw err;
  const data = (res.body as { data?: T } | undefined)?.data;
  if (!data) throw new PlatformError('transient', 'Hashnode answered without data');
  return data;
}

/** The token's user (`me`), or null when Hashnode does not know the token. */
export async function me(ctx: Http, token: string): Promise<HashnodeUser | null> {
  return (await gql<{ me: HashnodeUser | null }>(ctx, token, Q.me)).me;
}

/** The tag with this slug, or null. */
export async function tagBySlug(ctx: Http, token: string, slug: string): Promise<{ id: string } | null> {
  return (await gql<{ tag: { id: string } | null }>(ctx, token, Q.tag, { slug })).tag;
}

/** The account's publications (the first 50). */
export async function myPublications(ctx: Http, token: string) {
  const data = await gql<{ me: { publications: Connection<{ id: string; title: string; url: string }> } | null }>(ctx, token, Q.publications, { first: 50 });
  return (data.me?.publications.edges ?? []).map((e) => e.node);
}

/** A publication's posts, newest first, page by page. */
export async function* postsOf(ctx: Http, token: string, publicationId: string): AsyncGenerator<PostNode> {
  let after: string | null | undefined = null;
  for (let page = 0; page < MAX_PAGES; page++) {
    const data: { publication: { posts: Connection<PostNode> } | null } = await gql(ctx, token, Q.posts, { id: publicationId, first: PAGE_SIZE, after });
    if (!data.publication) throw new PlatformError('rejected', `Hashnode has no publication ${publicationId}`);
    for (const e of data.publication.posts.edges) yield e.node;
    after = data.publication.posts.pageInfo?.endCursor;
    if (!data.publication.posts.pageInfo?.hasNextPage || !after) return;
  }
}

/** `publishPost`: the new post's id and URL as Hashnode names them (null when it does not). */
export async function publishPost(ctx: Http, token: string, input: Record<string, unknown>): Promise<{ id: string; url: string } | null | undefined> {
  const data = await gql<{ publishPost: { post: { id: string; url: string } | null } | null }>(ctx, token, Q.publish, { input });
  return data.publishPost?.post;
}

/** One post's lifetime figures, or null when Hashnode has no such post. */
export async function postFigures(ctx: Http, token: string, id: string) {
  return (await gql<{ post: { views?: number | null; reactionCount?: number; responseCount?: number } | null }>(ctx, token, Q.post, { id })).post;
}
