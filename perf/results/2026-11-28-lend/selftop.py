import sys, collections
f=sys.argv[1]; n=int(sys.argv[2]) if len(sys.argv)>2 else 40
selfc=collections.Counter(); thread=collections.Counter(); total=0
for line in open(f):
    st, c = line.rsplit(' ',1); c=int(c); fr=st.split(';'); total+=c
    thread[fr[0][:40]]+=c
    # self: last frame; also "first java frame from the top"
    selfc[fr[-1]]+=c
print("total", total)
for k,v in thread.most_common(8): print("T %6d %5.1f%% %s"%(v,100*v/total,k))
for k,v in selfc.most_common(n): print("%6d %5.1f%% %s"%(v,100*v/total,k))
