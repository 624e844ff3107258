/**
 * @module Adding documents to an assistant: a file input (the way for keyboard and screen reader users) inside a zone
 * that also takes dropped files, with the upload's progress. The request goes through XMLHttpRequest, the one browser
 * API that reports how much of a body was sent; the React SDK builds it and reads its answer (`useKnowledgeActions`).
 */
import { useKnowledgeActions, type UploadRequest, type UploadResponse } from '@therapy-care/react'
import { ApiConnectionError } from '@therapy-care/sdk'
import { useRef, useState, type DragEvent } from 'react'
import { ProblemMessage } from '../parts/problem.tsx'
import { useSession } from '../parts/session.tsx'

/** `getAllResponseHeaders()` (CRLF-separated `name: value` lines) as Headers. */
function headersOf(raw: string): Headers {
  const headers = new Headers()
  for (const line of raw.trim().split(/[\r\n]+/)) {
    const colon = line.indexOf(':')
    if (colon > 0) headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim())
  }
  return headers
}

/** The console's upload transport: same origin as the console (the API serves it), progress from `xhr.upload`. */
function sendWithXhr(request: UploadRequest): Promise<UploadResponse> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest()
    xhr.open(request.method, new URL(request.path, location.origin).href)
    for (const [name, value] of Object.entries(request.headers)) xhr.setRequestHeader(name, value)
    xhr.upload.onprogress = (event) => {
      if (event.lengthComputable) request.onProgress(event.loaded / event.total)
    }
    xhr.upload.onload = () => request.onProgress(1)
    xhr.onload = () =>
      resolve({ status: xhr.status, headers: headersOf(xhr.getAllResponseHeaders()), text: xhr.responseText })
    // The same error the SDK gives for a call that got no answer, so the page explains it the same way.
    xhr.onerror = () => reject(new ApiConnectionError('The upload got no answer.', 1, undefined))
    xhr.onabort = () => reject(new ApiConnectionError('The upload was stopped.', 1, undefined))
    xhr.send(request.body)
  })
}

/** What the API takes (PDF, Markdown, plain text): a hint to the file picker; the API decides. */
const ACCEPT = '.pdf,.md,.markdown,.txt,application/pdf,text/markdown,text/plain'

export function KnowledgeUpload({ assistantId, assistantName }: { assistantId: string; assistantName: string }) {
  const { upload } = useKnowledgeActions({ uploadTransport: sendWithXhr })
  const { signedIn } = useSession()
  const [progress, setProgress] = useState<number>()
  const [dragging, setDragging] = useState(false)
  const input = useRef<HTMLInputElement>(null)
  const send = (files: FileList | null) => {
    if (!files || files.length === 0 || upload.isPending) return
    setProgress(0)
    upload.mutate(
      { assistantId, files: [...files], accessToken: signedIn.idToken, onProgress: setProgress },
      {
        onSettled: () => {
          setProgress(undefined)
          // The same file chosen again is a new upload: the input must fire its change again.
          if (input.current) input.current.value = ''
        },
      }
    )
  }
  const over = (event: DragEvent) => {
    event.preventDefault()
    setDragging(true)
  }
  const drop = (event: DragEvent) => {
    event.preventDefault()
    setDragging(false)
    send(event.dataTransfer.files)
  }
  const percent = progress === undefined ? 0 : Math.round(progress * 100)
  const uploaded = upload.data?.data.length ?? 0
  return (
    <section aria-labelledby="upload-heading">
      <h2 id="upload-heading">Add documents to {assistantName}</h2>
      <div
        className={dragging ? 'drop-zone drop-zone-active' : 'drop-zone'}
        onDragOver={over}
        onDragLeave={() => setDragging(false)}
        onDrop={drop}
      >
        <label htmlFor="knowledge-files">Choose PDF, Markdown or text files</label>
        <input
          id="knowledge-files"
          ref={input}
          type="file"
          multiple
          accept={ACCEPT}
          disabled={upload.isPending}
          aria-describedby="knowledge-files-hint"
          onChange={(e) => send(e.target.files)}
        />
        <p id="knowledge-files-hint" className="quiet">
          Or drop them here. Each file becomes a document of {assistantName}, searchable once it is indexed.
        </p>
      </div>
      {progress !== undefined && (
        <p>
          <label htmlFor="upload-progress">Upload</label> <progress id="upload-progress" max={1} value={progress} />{' '}
          <span aria-hidden="true">{percent}%</span>
        </p>
      )}
      <p role="status">
        {upload.isPending && (progress === 1 ? 'Sent: waiting for the platform to accept the files…' : 'Uploading…')}
        {upload.isSuccess &&
          `${uploaded} ${uploaded === 1 ? 'document' : 'documents'} added: indexing shows in the list of documents.`}
      </p>
      <ProblemMessage error={upload.error} />
    </section>
  )
}
