/**
 * @module Knowledge: the centre's assistants and, for the one chosen, its documents (indexing followed until each is
 * READY or FAILED), uploads, a question box to try it, and the questions it could not answer.
 */
import { useAssistants, useKnowledgeActions, useKnowledgeDocuments } from '@therapy-care/react'
import type { Schema } from '@therapy-care/sdk'
import { useState, type FormEvent } from 'react'
import { TOOLS, type Tool } from '../parts/catalogue.ts'
import { bytes, when } from '../parts/format.ts'
import { errorAt, fieldErrors, ProblemMessage } from '../parts/problem.tsx'
import { TextField } from '../parts/text-field.tsx'
import { useCan } from '../parts/session.tsx'
import { KnowledgeQuestion } from './knowledge-question.tsx'
import { KnowledgeUpload } from './knowledge-upload.tsx'
import { UnansweredQuestions } from './unanswered-questions.tsx'

type Assistant = Schema<'Assistant'>

const STATUS_WORDS = { PROCESSING: 'Being indexed', READY: 'Ready', FAILED: 'Failed' } as const

function NewAssistantForm() {
  const { createAssistant } = useKnowledgeActions()
  const [name, setName] = useState('')
  const [scope, setScope] = useState('tenant')
  const [tools, setTools] = useState<readonly Tool[]>(['knowledge'])
  const [description, setDescription] = useState('')
  const errors = fieldErrors(createAssistant.error)
  const submit = (event: FormEvent) => {
    event.preventDefault()
    const input = { name: name.trim(), scope: scope.trim(), tools: [...tools] }
    createAssistant.mutate(description.trim() ? { ...input, description: description.trim() } : input, {
      onSuccess: () => {
        setName('')
        setDescription('')
      },
    })
  }
  return (
    <form onSubmit={submit} aria-labelledby="new-assistant-heading" noValidate>
      <h2 id="new-assistant-heading">New assistant</h2>
      <ProblemMessage error={createAssistant.error} />
      <TextField id="assistant-name" label="Name" value={name} onChange={setName} error={errors.name} />
      <TextField
        id="assistant-scope"
        label="What it may see"
        value={scope}
        onChange={setScope}
        error={errors.scope}
        hint={
          <>
            <code>tenant</code> for every location, or <code>location:</code> and a location’s id for one.
          </>
        }
      />
      <fieldset>
        <legend>Tools it may use (knowledge answers from its documents)</legend>
        {TOOLS.map((tool) => (
          <span key={tool} className="tag">
            <input
              id={`assistant-tool-${tool}`}
              type="checkbox"
              checked={tools.includes(tool)}
              onChange={(e) => setTools(e.target.checked ? [...tools, tool] : tools.filter((t) => t !== tool))}
            />{' '}
            <label htmlFor={`assistant-tool-${tool}`}>{tool}</label>
          </span>
        ))}
        {errorAt(errors, 'tools') && <p className="field-error">{errorAt(errors, 'tools')}</p>}
      </fieldset>
      <TextField
        id="assistant-description"
        label="Description (optional)"
        value={description}
        onChange={setDescription}
        error={errors.description}
      />
      <button type="submit" disabled={createAssistant.isPending}>
        {createAssistant.isPending ? 'Creating…' : 'Create assistant'}
      </button>
    </form>
  )
}

function Documents({ assistant, canChange }: { assistant: Assistant; canChange: boolean }) {
  const documents = useKnowledgeDocuments({ assistantId: assistant.id })
  const { deleteDocument } = useKnowledgeActions()
  const indexing = documents.data?.data.filter((d) => d.status === 'PROCESSING').length ?? 0
  const remove = (d: { id: string; name: string }) => {
    if (confirm(`Delete “${d.name}” and everything indexed from it?`)) deleteDocument.mutate(d.id)
  }
  return (
    <section aria-labelledby="documents-heading">
      <h2 id="documents-heading">Documents of {assistant.name}</h2>
      <ProblemMessage error={deleteDocument.error} />
      {documents.isPending && <p role="status">Loading documents…</p>}
      {documents.isError && <ProblemMessage error={documents.error} />}
      <p role="status" className="quiet">
        {indexing > 0 &&
          `${indexing} ${indexing === 1 ? 'document is' : 'documents are'} being indexed: this list follows them.`}
      </p>
      {documents.data?.data.length === 0 && (
        <p className="empty">
          {assistant.name} has no document yet, so it cannot answer anything.{' '}
          {canChange ? 'Add the centre’s policies, price lists or FAQs below.' : 'An owner or admin can add some.'}
        </p>
      )}
      {documents.data && documents.data.data.length > 0 && (
        <div className="table-wrap">
          <table>
            <caption className="visually-hidden">Documents of {assistant.name}, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Document</th>
                <th scope="col">Status</th>
                <th scope="col">Size</th>
                <th scope="col">Passages</th>
                <th scope="col">Indexed</th>
                {canChange && <th scope="col">Actions</th>}
              </tr>
            </thead>
            <tbody>
              {documents.data.data.map((d) => (
                <tr key={d.id}>
                  <td>
                    {d.name}
                    {d.version > 1 && <span className="tag">version {d.version}</span>}
                  </td>
                  <td>
                    <span className={`status status-${d.status.toLowerCase()}`}>{STATUS_WORDS[d.status]}</span>
                    {d.status === 'PROCESSING' && <progress aria-label={`Indexing ${d.name}`} />}
                    {d.failureReason && <span className="field-error"> {d.failureReason}</span>}
                  </td>
                  <td>
                    {bytes(d.sizeBytes)}
                    {d.pageCount !== null && <span className="quiet">, {d.pageCount} pages</span>}
                  </td>
                  <td>{d.chunkCount}</td>
                  <td>{when(d.indexedAt)}</td>
                  {canChange && (
                    <td>
                      <button type="button" disabled={deleteDocument.isPending} onClick={() => remove(d)}>
                        Delete<span className="visually-hidden"> {d.name}</span>
                      </button>
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  )
}

export function KnowledgePage() {
  // Without `ai.read` every call below would be refused: say so once instead.
  const canRead = useCan('ai.read')
  if (!canRead) {
    return (
      <p className="empty">
        Your role does not include assistants and knowledge. An owner or admin can give you access.
      </p>
    )
  }
  return <Knowledge />
}

function Knowledge() {
  const assistants = useAssistants()
  const canChange = useCan('ai')
  const [chosenId, setChosenId] = useState<string>()
  const list = assistants.data?.data ?? []
  const chosen = list.find((a) => a.id === chosenId) ?? list[0]
  return (
    <>
      <p>Assistants answer from the documents given to them, citing them, and say so when the documents do not say.</p>
      <section aria-labelledby="assistants-heading">
        <h2 id="assistants-heading">Assistants</h2>
        {assistants.isPending && <p role="status">Loading assistants…</p>}
        {assistants.isError && <ProblemMessage error={assistants.error} />}
        {assistants.data?.data.length === 0 && (
          <p className="empty">
            No assistant yet.{' '}
            {canChange ? 'Create one below, then give it documents.' : 'An owner or admin can add one.'}
          </p>
        )}
        {list.length > 0 && (
          <ul className="cards">
            {list.map((a) => (
              <li key={a.id} className="card">
                <h3>{a.name}</h3>
                {a.description && <p>{a.description}</p>}
                <p>
                  Sees {a.scope === 'tenant' ? 'every location' : a.scope} · tools {a.tools.join(', ') || 'none'}
                </p>
                {a.knowledge.reembeddingTo && (
                  <p role="status">Its documents are being indexed again for {a.knowledge.reembeddingTo}.</p>
                )}
                <div className="actions">
                  <button type="button" aria-pressed={chosen?.id === a.id} onClick={() => setChosenId(a.id)}>
                    Documents and questions<span className="visually-hidden"> of {a.name}</span>
                  </button>
                </div>
              </li>
            ))}
          </ul>
        )}
      </section>
      {chosen && (
        <>
          <Documents key={chosen.id} assistant={chosen} canChange={canChange} />
          {canChange && (
            <KnowledgeUpload key={`upload-${chosen.id}`} assistantId={chosen.id} assistantName={chosen.name} />
          )}
          <KnowledgeQuestion key={`question-${chosen.id}`} assistants={list} assistantId={chosen.id} />
          <UnansweredQuestions assistantId={chosen.id} name={chosen.name} />
        </>
      )}
      {canChange && <NewAssistantForm />}
    </>
  )
}
