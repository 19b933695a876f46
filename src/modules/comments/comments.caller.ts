import type { AuthContext } from '../auth/auth.service.js';
import type { CommentCaller } from './comments.service.js';

/** Who calls, as the comments service knows them: the signed-in person, or the API key or OAuth app. */
export function commentCaller(auth: AuthContext): CommentCaller {
  if (auth.session) return { kind: 'user', id: auth.session.userId, name: auth.session.name || auth.session.email, role: auth.session.role };
  return { kind: auth.credential.kind === 'api_key' ? 'api_key' : 'oauth_app', id: auth.credential.id };
}
