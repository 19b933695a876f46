import { API_BASE, ApiFailure, csrfHeader, type ApiError } from './client.js';
import type { paths } from './schema.js';

export type MediaItem = paths['/upload']['post']['responses'][201]['content']['application/json'];

/**
 * Uploads one file to the media library with progress (XMLHttpRequest: fetch cannot report
 * upload progress). Large videos stream from the file; nothing is read into memory here.
 */
export function uploadFile(file: File, onProgress: (fraction: number) => void, signal?: AbortSignal): Promise<MediaItem> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', `${API_BASE}/upload`);
    xhr.withCredentials = true;
    for (const [k, v] of Object.entries(csrfHeader())) xhr.setRequestHeader(k, v);
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable) onProgress(e.loaded / e.total);
    };
    xhr.onload = () => {
      let body: unknown;
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        body = {};
      }
      if (xhr.status === 201) {
        onProgress(1);
        resolve(body as MediaItem);
      } else {
        const e = body as Partial<ApiError>;
        reject(new ApiFailure(xhr.status, { statusCode: xhr.status, code: e.code ?? 'UNKNOWN', message: e.message ?? `Upload failed (${xhr.status})`, fields: e.fields, requestId: e.requestId ?? '' }));
      }
    };
    xhr.onerror = () => reject(new Error('The upload was interrupted (network error)'));
    xhr.onabort = () => reject(new DOMException('Upload cancelled', 'AbortError'));
    signal?.addEventListener('abort', () => xhr.abort());
    const form = new FormData();
    form.append('file', file, file.name);
    xhr.send(form);
  });
}
